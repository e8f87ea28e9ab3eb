"""The check-firing benchmark end to end on two questions: both pipelines ingested, every
check the runs recorded reported with its counts."""

from __future__ import annotations

import json
from pathlib import Path

from citeloop.eval.bench_checks import main


def test_two_questions_give_a_firing_table_per_pipeline(tmp_path: Path, capsys) -> None:  # noqa: ANN001
    out = tmp_path / "checks.json"
    assert main(["--questions", "2", "--out", str(out)]) == 0
    result = json.loads(out.read_text(encoding="utf-8"))
    assert result["questions"] == {"rule": 2, "model": 2} and result["model"] == "fake:obedient"
    rule = {r["check"]: r for r in result["pipelines"]["rule"]}
    model = {r["check"]: r for r in result["pipelines"]["model"]}
    assert {"audit", "audit_link", "audit_mirror"} <= set(rule) and "judge" not in rule
    assert {"audit", "judge", "critic"} <= set(model)  # the model parts record their own checks
    assert all(1 <= r["runs"] <= 2 and 0 <= r["fired"] <= r["ran"] for r in [*rule.values(), *model.values()])
    assert "rule     audit" in capsys.readouterr().out
