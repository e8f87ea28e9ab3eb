"""bench_verifier's command line and table: a bad input is one error line and exit 2 before
anything is measured; the trained judge's firing rate and seconds per check stand in their own
columns (a raw float of five decimals ran into the firing rate)."""

from __future__ import annotations

import pytest

from citeloop.eval import bench_verifier


def _row(macro_f1: float) -> dict:
    return {"pairs": 274, "verifier": {"name": "lexical"}, "accuracy": 0.613, "macro_f1": macro_f1,
            "contradiction_recall": 0.18, "overlap": {"macro_f1": 0.476}, "majority": {"macro_f1": 0.196},
            "vs_overlap": {"macro_f1_points": 5.3, "ci95_points": [-3.3, 13.7]}}


def test_the_judges_columns_are_apart(capsys: pytest.CaptureFixture[str]) -> None:
    trained = {**_row(0.52), "seconds_per_check": 1.14114, "checks": {"trained": {"fire_rate": 0.3978}}}
    bench_verifier._print({"sets": {"scifact": {"validation": {"verifier": _row(0.529), "trained": trained}}}}, None)
    line = next(ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("scifact"))
    assert line.split()[-4:] == ["52.0", "18.0", "39.8", "1.14"]


@pytest.mark.parametrize(("args", "said"), [
    (["--trained", "missing-endpoint.yaml"], "missing-endpoint.yaml: config file not found"),
    (["--verifier", "bogus"], "unknown verifier 'bogus'"),
    (["--data", "no-such-dir"], "--data no-such-dir: not a directory"),
    (["--baseline", "no-such-baseline.json"], "no-such-baseline.json"),
])
def test_a_bad_input_is_one_error_line(args: list[str], said: str, tmp_path, monkeypatch,  # noqa: ANN001
                                       capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert bench_verifier.main([*args, "--out", str(tmp_path / "out.json")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and said in err and "Traceback" not in err and len(err.splitlines()) == 1
    assert not (tmp_path / "out.json").exists()
