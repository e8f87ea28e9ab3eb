"""A benchmark's `--sets` names shared sets only: an unknown name is one `error:` line and exit 2,
before any research runs or any model loads."""

from __future__ import annotations

from pathlib import Path

import pytest

from citeloop.eval import bench_headroom, bench_prompts
from citeloop.eval.datasets import DatasetError, set_names


def test_set_names_keeps_known_names_in_order() -> None:
    assert set_names(" musique, hotpotqa ,") == ["musique", "hotpotqa"]
    assert set_names("scifact", ("scifact", "wice")) == ["scifact"]


@pytest.mark.parametrize(("text", "message"), [
    ("hotpotqa,nosuch", "unknown set 'nosuch' in --sets; valid: hotpotqa, musique, 2wiki"),
    (" , ", "--sets names no set"),
    ("scifact", "unknown set 'scifact'"),
])
def test_set_names_refuses_what_it_does_not_know(text: str, message: str) -> None:
    with pytest.raises(DatasetError, match=message):
        set_names(text)


@pytest.mark.parametrize("argv", [
    ["--sets", "hotpotqa,nosuch"],
    ["--sets", ","],
])
def test_bench_headroom_and_prompts_refuse_an_unknown_set(argv: list[str], tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out.json"
    assert bench_headroom.main([*argv, "--out", str(out)]) == 2
    assert bench_prompts.main(["--model", str(tmp_path), *argv, "--out", str(out)]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 2 and all(line.startswith("error: ") and "--sets" in line for line in lines)
    assert not out.exists()
