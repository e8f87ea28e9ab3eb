"""`citeloop view` without a browser: the page is self-contained, its data block is escaped
and round-trips, run/diff/eval pages build, and bad input exits 2 with nothing written.
(tests/test_viewer_browser.py opens the pages in headless Chromium.)"""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest

from citeloop.eval.cli import main
from citeloop.eval.viewer import diff_page, embed_json, eval_page, extract_json, load_eval_json, run_page
from citeloop.eval.viewer_data import run_view_data
from citeloop.runtime.session import ResearchKit
from citeloop.trajectories.runfile import read_run


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, Path(__file__).parent / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


vr = _load("viewer_runs")


@pytest.fixture(scope="module")
def runs(kit: ResearchKit, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("viewer")
    eval_json, eval_runs = vr.tiny_eval(tmp)
    return {"a": vr.real_run(kit, tmp / "runs"), "b": vr.real_run(kit, tmp / "runs", policy="naive"),
            "hostile": vr.hostile_run(tmp), "eval": eval_json, "eval_runs": eval_runs}


def _outside_data(page: str) -> str:
    return re.sub(r'<script type="application/json" id="citeloop-data">.*?</script>', "", page, flags=re.S)


def test_page_is_self_contained(runs: dict[str, Path]) -> None:
    page = run_page(read_run(runs["a"]))
    shell = _outside_data(page)
    for needle in ("<link", " src=", "href=", "@import", "url(", "fetch(", "XMLHttpRequest", "WebSocket", "EventSource"):
        assert needle not in shell, needle
    # The only address in the page's own markup and script is the SVG namespace name.
    assert set(re.findall(r"https?://[^\s\"'<>]+", shell)) <= {"http://www.w3.org/2000/svg"}
    assert "default-src &#x27;none&#x27;" in shell and "script-src &#x27;sha256-" in shell
    assert len(re.findall(r"<script\b", page)) == 2


def test_data_block_round_trips_and_cannot_end_the_script(runs: dict[str, Path]) -> None:
    run = read_run(runs["hostile"])
    page = run_page(run)
    expected = json.loads(json.dumps(run_view_data(run, "A")))
    assert extract_json(page)["runs"][0] == expected
    block = page.split('id="citeloop-data">', 1)[1].split("</script>", 1)[0]
    assert "<" not in block and ">" not in block and "&" not in block
    assert vr.SCRIPT_TAG in json.dumps(expected), "the hostile text must be in the data, as data"
    tricky = {"s": "</script><!-- <script>alert(1)</script> & \u2028 --> ]]>"}
    assert json.loads(embed_json(tricky)) == tricky
    assert not re.search(r"</|<!--|<script", embed_json(tricky), re.I)


def test_run_data_links_claims_cards_and_rounds(runs: dict[str, Path]) -> None:
    run = read_run(runs["a"])
    data = run_view_data(run)
    assert len(data["events"]) == len(run.events)
    report_claims = [c for s in data["report"]["sections"] for c in s["claims"]]
    assert report_claims
    for rc in report_claims:
        claim = data["claims"][rc["claim_id"]]
        assert claim["final_verdict"]["checker"] and claim["searches"]
        for card_id in rc["citations"]:
            assert data["citations"][card_id] >= 1
            assert rc["claim_id"] in data["cards"][card_id]["cited_by"]
            assert data["cards"][card_id]["doc_id"] in data["docs"]
    phases = [(e["phase"], e["round"]) for e in data["events"]]
    assert phases[0] == ("plan", 0) and phases[-1][0] == "verify"
    rounds = [r for p, r in phases if p == "round"]
    assert rounds == sorted(rounds) and rounds[0] == 1
    for e in data["events"]:
        if e["type"] == "query_issued":
            assert e["round"] == e["data"]["round"]


def test_diff_and_eval_pages_build(runs: dict[str, Path]) -> None:
    data = extract_json(diff_page(read_run(runs["a"]), read_run(runs["b"])))
    assert data["kind"] == "diff" and [r["label"] for r in data["runs"]] == ["A", "B"]
    assert data["diff"]["identical"] is False and data["diff"]["first_divergence"] is not None
    payload = load_eval_json(runs["eval"])
    embedded = [read_run(p) for p in sorted(runs["eval_runs"].glob("*.jsonl"))]
    data = extract_json(eval_page(payload, embedded))
    assert data["kind"] == "eval" and set(data["eval"]["policies"]) == {"heuristic", "naive"}
    rows = {r["run_id"] for p in data["eval"]["policies"].values() for r in p["per_question"]}
    assert {r["run_id"] for r in data["runs"]} == rows


def test_cli_writes_pages(runs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str],
                          monkeypatch: pytest.MonkeyPatch) -> None:
    opened: list[str] = []
    monkeypatch.setattr("citeloop.eval.view_cli.webbrowser.open", opened.append)
    out = tmp_path / "page.html"
    assert main(["view", str(runs["a"]), "--out", str(out), "--open"]) == 0
    assert extract_json(out.read_text(encoding="utf-8"))["kind"] == "run"
    assert opened == [out.resolve().as_uri()]
    assert main(["view", str(runs["a"]), "--diff", str(runs["b"]), "--out", str(tmp_path / "d.html")]) == 0
    assert main(["view", "--eval", str(runs["eval"]), "--runs", str(runs["eval_runs"]),
                 "--out", str(tmp_path / "e.html")]) == 0
    assert "wrote" in capsys.readouterr().out


def _fails(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2, (code, err)
    assert err.startswith("error: ") and "Traceback" not in err, err
    return err


def test_cli_bad_input_exits_2(runs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "x.html"
    assert "no such run file" in _fails(["view", str(tmp_path / "nope.jsonl"), "--out", str(out)], capsys)
    assert "give a run file" in _fails(["view", "--out", str(out)], capsys)
    not_json = tmp_path / "eval.json"
    not_json.write_text("{oops", encoding="utf-8")
    assert "not valid JSON" in _fails(["view", "--eval", str(not_json), "--out", str(out)], capsys)
    not_json.write_text('{"policies": {}}', encoding="utf-8")
    assert "not an eval.json" in _fails(["view", "--eval", str(not_json), "--out", str(out)], capsys)
    assert "either RUN" in _fails(["view", str(runs["a"]), "--eval", str(runs["eval"]), "--out", str(out)], capsys)
    assert "--runs goes with --eval" in _fails(["view", str(runs["a"]), "--runs", str(tmp_path), "--out", str(out)], capsys)
    assert ".html" in _fails(["view", str(runs["a"]), "--out", str(tmp_path / "x.txt")], capsys)
    not_run = tmp_path / "notes.jsonl"
    not_run.write_text("not a run\n", encoding="utf-8")
    assert "citeloop run file" in _fails(["view", str(not_run), "--out", str(out)], capsys)
    assert not out.exists() and not (tmp_path / "x.txt").exists()


def test_diff_of_different_questions_exits_2(runs: dict[str, Path], tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    eval_run = next(runs["eval_runs"].glob("*.jsonl"))
    err = _fails(["view", str(runs["a"]), "--diff", str(eval_run), "--out", str(tmp_path / "d.html")], capsys)
    assert "different questions" in err
    assert not (tmp_path / "d.html").exists()


def test_torn_run_still_gets_a_page(runs: dict[str, Path], tmp_path: Path) -> None:
    lines = runs["a"].read_text(encoding="utf-8").splitlines(keepends=True)
    torn = tmp_path / "torn.jsonl"
    torn.write_text("".join(lines[: len(lines) // 2]) + lines[len(lines) // 2][:20], encoding="utf-8")
    data = extract_json(run_page(read_run(torn)))["runs"][0]
    assert data["torn"] and data["problem"] and data["report"] is None and data["outcome"] is None
    assert len(data["events"]) == len(lines) // 2 - 1
