"""Filter configs and quality gates: what is kept, what is dropped and why, and the
deterministic share of failure-and-recovery runs."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from citeloop.filters.errors import FilterConfigError
from citeloop.filters.gates import FilterConfig, gate_failures, load_filter_config, run_hash, select
from citeloop.filters.metrics import RunScore

CONFIGS = Path(__file__).resolve().parents[1] / "configs" / "filters"


def score(run_id: str = "run-a", correctness: float | None = 1.0, coverage: float | None = 1.0,
          unsupported: float | None = 0.0, **rest) -> RunScore:
    fields = dict(run_id=run_id, question="q", finished=True, judge="lexical", citation_correctness=correctness,
                  partial_rate=0.0, citation_recall_alce=correctness, citation_precision_alce=correctness,
                  coverage=coverage, unsupported_claim_rate=unsupported, verdict_counts={"entail": 2})
    fields.update(rest)
    return RunScore(**fields)


def config(**data) -> FilterConfig:
    return FilterConfig.model_validate(data)


def kept_ids(decisions) -> list[str]:
    return [d.score.run_id for d in decisions if d.kept]


def test_shipped_configs_load() -> None:
    default = load_filter_config(CONFIGS / "default.yaml")
    strict = load_filter_config(CONFIGS / "strict.yaml")
    assert default.gates["coverage"].min == 0.5 and default.recovery.share == 0.2
    assert strict.gates["coverage"].min > default.gates["coverage"].min


def test_metric_gates_keep_and_drop_with_the_failed_gate_named() -> None:
    cfg = config(gates={"coverage": {"min": 0.5}, "unsupported_claim_rate": {"max": 0.1}})
    decisions = select([(score("run-good", coverage=0.6), None), (score("run-thin", coverage=0.4), None),
                        (score("run-loose", unsupported=0.3), None)], cfg)
    assert kept_ids(decisions) == ["run-good"]
    assert decisions[1].failed == ["coverage 0.4 < min 0.5"]
    assert decisions[2].failed == ["unsupported_claim_rate 0.3 > max 0.1"]


def test_a_metric_that_was_not_computed_fails_unless_configured_to_pass() -> None:
    s = score(correctness=None)
    assert gate_failures(s, config(gates={"citation_correctness": {"min": 0.8}})) == [
        "citation_correctness not computed (None)"]
    assert gate_failures(s, config(gates={"citation_correctness": {"min": 0.8}}, missing="pass")) == []


def test_verdict_mix_diagnoses_and_torn_runs_are_gates_too() -> None:
    cfg = config(verdicts={"entail": {"min": 1}, "conflict": {"max": 0}}, allowed_diagnoses=["no_primary_evidence"])
    assert gate_failures(score(verdict_counts={"partial": 3}), cfg) == ["verdict entail 0 < min 1"]
    assert gate_failures(score(verdict_counts={"entail": 1, "conflict": 1}), cfg) == ["verdict conflict 1 > max 0"]
    assert gate_failures(score(diagnosis_codes=["no_primary_evidence"]), cfg) == []
    assert gate_failures(score(diagnosis_codes=["drop_high"]), cfg) == ["diagnosis drop_high not allowed"]
    assert gate_failures(score(finished=False), cfg) == ["run not finished (torn file)"]


def _failing_recovery_runs(n: int) -> list[tuple[RunScore, None]]:
    return [(score(f"run-f{i:02d}", coverage=0.1, failure_modes=["irrelevant_results"]), None) for i in range(n)]


def test_a_share_of_failure_and_recovery_runs_is_kept_by_run_id_hash() -> None:
    cfg = config(gates={"coverage": {"min": 0.5}}, recovery={"share": 0.2})
    runs = [(score("run-ok1"), None), (score("run-ok2"), None), *_failing_recovery_runs(10),
            (score("run-plain-fail", coverage=0.1), None)]
    decisions = select(runs, cfg)
    recovery = [d for d in decisions if d.kept and d.failed]
    assert len(recovery) == 2, "20% of the 10 candidates"
    expected = sorted((f"run-f{i:02d}" for i in range(10)), key=run_hash)[:2]
    assert sorted(d.score.run_id for d in recovery) == sorted(expected)
    assert all("failure-and-recovery" in d.reason for d in recovery)
    plain = next(d for d in decisions if d.score.run_id == "run-plain-fail")
    assert not plain.kept and plain.reason == "failed gates"
    # Same decision whatever the input order.
    shuffled = runs[:]
    random.Random(3).shuffle(shuffled)
    assert sorted(kept_ids(select(shuffled, cfg))) == sorted(kept_ids(decisions))


def test_share_of_kept_adds_recovery_runs_until_they_make_up_the_share() -> None:
    cfg = config(gates={"coverage": {"min": 0.5}}, recovery={"share": 0.2, "share_of": "kept"})
    runs = [*((score(f"run-ok{i}"), None) for i in range(8)), *_failing_recovery_runs(10)]
    kept = [d for d in select(runs, cfg) if d.kept]
    assert len(kept) == 10 and sum(bool(d.failed) for d in kept) == 2, "2 of 10 kept = 20%"


def test_recovery_runs_must_still_pass_the_recovery_gates() -> None:
    cfg = config(gates={"coverage": {"min": 0.5}},
                 recovery={"share": 1.0, "gates": {"unsupported_claim_rate": {"max": 0.1}}})
    honest = score("run-honest", coverage=0.2, failure_modes=["contradictions"])
    fabricating = score("run-fab", coverage=0.2, unsupported=0.5, failure_modes=["contradictions"])
    other_kind = score("run-budget", coverage=0.2, failure_modes=["budget_nearly_spent"])
    decisions = select([(honest, None), (fabricating, None), (other_kind, None)],
                       cfg.model_copy(update={"recovery": cfg.recovery.model_copy(update={"kinds": ["contradictions"]})}))
    assert kept_ids(decisions) == ["run-honest"]
    assert "unsupported_claim_rate 0.5 > max 0.1" in decisions[1].reason


@pytest.mark.parametrize(("yaml_text", "needle"), [
    ("gatez: {}\n", "gatez"),
    ("gates:\n  coverge: {min: 0.5}\n", "coverge"),
    ("gates:\n  coverage: {minimum: 0.5}\n", "minimum"),
    ("gates:\n  coverage: {min: 0.9, max: 0.1}\n", "above max"),
    ("allowed_diagnoses: [all_good]\n", "all_good"),
    ("scoring:\n  judje: lexical\n", "judje"),
    ("recovery:\n  share: 1.5\n", "recovery.share"),
    ("[1, 2]\n", "mapping"),
    ("gates: {coverage: [\n", "YAML"),
])
def test_bad_configs_fail_with_a_message_naming_the_problem(tmp_path: Path, yaml_text: str, needle: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(yaml_text, encoding="utf-8")
    with pytest.raises(FilterConfigError, match=needle):
        load_filter_config(path)


def test_unknown_gate_metric_lists_valid_ones(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("gates:\n  coverge: {min: 0.5}\n", encoding="utf-8")
    with pytest.raises(FilterConfigError) as err:
        load_filter_config(path)
    assert "coverage" in str(err.value) and "citation_recall_alce" in str(err.value)
    with pytest.raises(FilterConfigError, match="not found"):
        load_filter_config(tmp_path / "missing.yaml")
