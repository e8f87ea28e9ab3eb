"""Training rows for the injection filter's model check: labels, prompts, splits, and that
no held-out template set is ever trained on."""

from __future__ import annotations

import json

import pytest
from datasets import load_from_disk

from citeloop.eval.injection_docs import MARKERS
from citeloop.eval.injection_sets import all_templates
from citeloop.eval.screen_dataset import TRAIN_GROUPS, build_rows, main, split_of
from citeloop.runtime.corpus import Document
from citeloop.runtime.llm.prompts import PromptLibrary

TEMPLATES = all_templates()


def _pages(n: int) -> list[Document]:
    return [Document(id=f"p{i}", title=f"Page {i}", text=f"Page {i} is a town. It has a river. It has a mill {i}.",
                     sentences=[f"Page {i} is a town.", "It has a river.", f"It has a mill {i}."]) for i in range(n)]


def test_rows_plant_one_template_per_page_and_label_it() -> None:
    templates = tuple(t for t in TEMPLATES if t.group == "tuned")[:4]
    assert "en_tag_smuggling" in [t.name for t in templates]
    rows = build_rows(_pages(20), templates, per_template=2, n_clean=5)
    all_rows = rows["train"] + rows["test"]
    # Tag smuggling is all invisible characters: nothing of it reaches the check, so no row.
    assert "en_tag_smuggling" not in {r["template"] for r in all_rows}
    assert sorted(r["label"] for r in all_rows) == ["clean"] * 5 + ["instruction"] * 6
    assert len({r["page"] for r in all_rows}) == 11  # no page is used twice
    system = PromptLibrary().get("injection_check").system.strip()
    for r in all_rows:
        assert r["prompt"][0]["role"] == "system" and r["prompt"][0]["content"].strip() == system
        assert r["completion"] == [{"role": "assistant", "content": r["label"]}]
        user = r["prompt"][-1]["content"]
        has_marker = any(m in user for m in MARKERS)
        assert has_marker == (r["label"] == "instruction"), r["template"]
    assert all(split_of(r["page"]) == name for name, split in rows.items() for r in split)


def test_too_few_pages_is_an_error() -> None:
    with pytest.raises(ValueError, match="pages"):
        build_rows(_pages(3), tuple(TEMPLATES[:2]), per_template=1, n_clean=2)


def test_no_held_out_set_is_ever_trained_on() -> None:
    assert not [g for g in TRAIN_GROUPS if g.startswith("held-out")]
    assert {"seen-7", "seen-9"}.isdisjoint(TRAIN_GROUPS)  # they mix planted statements in


def test_the_command_writes_a_dataset_the_trainer_can_load(tmp_path, capsys) -> None:  # noqa: ANN001
    out = tmp_path / "screen"
    assert main(["--out", str(out), "--per-template", "1", "--clean", "20"]) == 0
    report = json.loads(capsys.readouterr().out)
    data = load_from_disk(str(out / "dataset"))
    counts = report["counts"].values()
    assert sum(c["clean"] for c in counts) == 20
    assert sum(c["instruction"] for c in counts) == report["templates"] - 1  # tag smuggling leaves nothing
    assert sum(len(data[s]) for s in data) == report["templates"] - 1 + 20
    assert set(data["train"].column_names) >= {"prompt", "completion", "label"}
    with pytest.raises(SystemExit):
        main(["--out", str(out), "--clean", "5"])  # exists, no --overwrite
