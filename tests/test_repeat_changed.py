"""Best-of-K rows that change the recorded action, written several times (`repeat_changed`)."""

from __future__ import annotations

import pytest

from citeloop.eval.loop_config import PairSettings
from citeloop.training.best_of_k import repeat_changed
from citeloop.training.sft import SftExport


def _row(name: str, kept: bool) -> dict:
    return {"question": name, "best_is_recorded": kept}


def test_rows_that_change_the_action_are_repeated_in_place() -> None:
    export = SftExport(rows={"train": [_row("a", True), _row("b", False), _row("c", True)],
                             "test": [_row("d", False)]})
    out = repeat_changed(export, 3)
    assert [r["question"] for r in out.rows["train"]] == ["a", "b", "b", "b", "c"]
    assert [r["question"] for r in out.rows["test"]] == ["d", "d", "d"]


def test_once_leaves_the_rows_as_they_were() -> None:
    rows = [_row("a", True), _row("b", False)]
    assert repeat_changed(SftExport(rows={"train": list(rows), "test": []}), 1).rows["train"] == rows


def test_a_repeat_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="times must be >= 1"):
        repeat_changed(SftExport(), 0)
    with pytest.raises(ValueError):
        PairSettings(change_repeat=0)
    assert PairSettings().change_repeat == 1
