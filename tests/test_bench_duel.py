"""bench_duel's own arithmetic and its refusals (the duel itself needs two trees and minutes:
it is run by hand, see docs/benchmarks.md)."""

from __future__ import annotations

from pathlib import Path

from citeloop.eval import bench_duel


def test_the_interval_holds_the_ratio_of_sums_and_narrows_to_it_when_every_question_agrees() -> None:
    base, new = [1.0, 2.0, 3.0, 4.0], [0.5, 1.0, 1.5, 2.0]  # every question at half the cost
    assert bench_duel.bootstrap_ratio(base, new) == (0.5, 0.5)
    noisy = [0.4, 1.4, 1.2, 2.4]  # sum 5.4 of 10: 0.54
    lo, hi = bench_duel.bootstrap_ratio(base, noisy)
    assert lo < 0.54 < hi and hi - lo > 0.05


def test_a_baseline_without_a_citeloop_folder_is_one_error_line(tmp_path: Path, capsys) -> None:  # noqa: ANN001
    assert bench_duel.main(["--baseline", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --baseline") and err.count("\n") == 1
