"""Every shipped loop config loads, and the filter and train configs it names exist and load
with its train overrides applied (a renamed or re-keyed train config breaks here, not an hour
into a loop)."""

from pathlib import Path

import pytest

from citeloop.eval.loop_config import LoopConfig, load_loop_config
from citeloop.filters.gates import FilterConfig, load_filter_config
from citeloop.training.train_config import TrainConfig, load_train_config

ROOT = Path(__file__).resolve().parents[1]
LOOPS = sorted((ROOT / "configs" / "loop").glob("*.yaml"))


def test_there_are_loop_configs():
    assert len(LOOPS) >= 2


@pytest.mark.parametrize("path", LOOPS, ids=lambda p: p.name)
def test_every_shipped_loop_config_loads_with_its_stages(path):
    config = load_loop_config(path)
    assert isinstance(config, LoopConfig)
    if config.filter is not None:
        assert isinstance(load_filter_config(ROOT / config.filter), FilterConfig)
    stages = config.train if isinstance(config.train, list) else [config.train]
    assert stages, "a loop trains at least one stage"
    for stage in stages:
        assert (ROOT / stage).is_file(), f"{path.name} names a missing train config {stage}"
        assert isinstance(load_train_config(ROOT / stage, dict(config.train_overrides)), TrainConfig)


@pytest.mark.parametrize("path", LOOPS, ids=lambda p: p.name)
def test_loop_config_name_matches_its_file(path):
    assert load_loop_config(path).name == path.stem


def test_set_overrides_a_nested_key_before_validation():
    path = ROOT / "configs" / "loop" / "smollm2-follow-shift3.yaml"
    config = load_loop_config(path, {"pairs.change_repeat": 5, "out": "loop-out/variant"})
    assert config.pairs.change_repeat == 5 and config.out == Path("loop-out/variant")
    assert config.pairs.decision == "follow"  # the file's other pairs keys stay
    assert load_loop_config(path).pairs.change_repeat == 1


def test_an_out_dir_is_claimed_by_one_config(tmp_path: Path):
    import json

    from citeloop.eval.loop_config import OUT_MARKER, LoopError, claim_out_dir

    path = ROOT / "configs" / "loop" / "tiny.yaml"
    out = tmp_path / "run"
    config = load_loop_config(path, {"out": str(out)})
    claim_out_dir(config, out)
    assert json.loads((out / OUT_MARKER).read_text(encoding="utf-8"))["name"] == "tiny"
    claim_out_dir(config, out)  # the same config again: allowed
    claim_out_dir(load_loop_config(path, {"out": str(tmp_path / "moved")}), out)  # `out` is not compared
    variant = load_loop_config(path, {"out": str(out), "pairs.change_repeat": 3})
    before = (out / OUT_MARKER).read_bytes()
    with pytest.raises(LoopError, match=r"another config \(pairs differs\); give this one its own"):
        claim_out_dir(variant, out)
    assert (out / OUT_MARKER).read_bytes() == before  # the earlier run's record is untouched


def test_an_older_run_is_known_by_its_reports_name_and_a_damaged_record_is_refused(tmp_path: Path):
    from citeloop.eval.loop_config import OUT_MARKER, LoopError, claim_out_dir

    config = load_loop_config(ROOT / "configs" / "loop" / "tiny.yaml")
    older = tmp_path / "older"
    older.mkdir()
    (older / "report.json").write_text('{"name": "smollm2-stop", "policies": {}}', encoding="utf-8")
    with pytest.raises(LoopError, match=r"\(name differs\)"):
        claim_out_dir(config, older)
    assert not (older / OUT_MARKER).exists()
    damaged = tmp_path / "damaged"
    damaged.mkdir()
    (damaged / OUT_MARKER).write_text('{"name": "tin', encoding="utf-8")
    with pytest.raises(LoopError, match=r"loop-config.json: not a JSON file of an earlier loop run"):
        claim_out_dir(config, damaged)
