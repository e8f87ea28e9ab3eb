"""The viewer in a real browser: headless Chromium (Debian's chromium + chromium-driver,
driven by Selenium; nothing is downloaded) opens generated pages from file://, clicks a
citation, reads the evidence panel, switches to the timeline and the decision inspector,
and checks that corpus text with `<script>` and event attributes stays text.

Screenshots go to `test-artifacts/viewer/` (or $CITELOOP_TEST_ARTIFACTS). The tests skip,
saying why, when Chromium, ChromeDriver or Selenium is missing; .ci/run installs them.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from citeloop.eval.headless import chromium, missing
from citeloop.eval.viewer import diff_page, eval_page, load_eval_json, render_page, run_page
from citeloop.eval.viewer_data import run_view_data
from citeloop.runtime.session import ResearchKit
from citeloop.trajectories.runfile import read_run

_missing = missing()
pytestmark = pytest.mark.skipif(bool(_missing), reason=f"browser tests need {', '.join(_missing)} "
                                "(apt-get install chromium chromium-driver; pip install -e '.[dev]')")
if not _missing:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
ARTIFACTS = Path(os.environ.get("CITELOOP_TEST_ARTIFACTS") or Path(__file__).resolve().parents[1] / "test-artifacts") / "viewer"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, Path(__file__).parent / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


vr = _load("viewer_runs")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with chromium() as driver:
        yield driver


@pytest.fixture(scope="module")
def pages(kit: ResearchKit, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("viewer-browser")
    a = read_run(vr.real_run(kit, tmp / "runs"))
    b = read_run(vr.real_run(kit, tmp / "runs", policy="naive"))
    hostile = read_run(vr.hostile_run(tmp))
    eval_json, eval_runs = vr.tiny_eval(tmp)
    llm = {"kind": "run", "citeloop": "test", "llm_fields": ["prompt", "completion", "logprobs"],
           "runs": [run_view_data(a, "A")], "diff": None, "eval": None}
    first = next(e for e in llm["runs"][0]["events"] if e["decision"])
    first["data"]["llm"] = {"prompt": "Pick a query. <script>window.__pwned=1</script>", "completion": "angle 3",
                            "logprobs": [{"token": "angle", "logprob": -0.01}]}
    written = {"run": run_page(a), "diff": diff_page(a, b), "hostile": run_page(hostile), "llm": render_page("llm", llm),
               "eval": eval_page(load_eval_json(eval_json), [read_run(p) for p in sorted(eval_runs.glob("*.jsonl"))])}
    paths = {}
    for name, page in written.items():
        paths[name] = tmp / f"{name}.html"
        paths[name].write_text(page, encoding="utf-8")
    return {"paths": paths, "a": a, "hostile": hostile, "llm_seq": first["seq"]}


def _open(driver: Any, path: Path) -> None:
    driver.get(path.resolve().as_uri())
    WebDriverWait(driver, 10).until(lambda d: d.execute_script("return document.body.dataset.ready") == "1")


def _tab(driver: Any, name: str) -> Any:
    driver.find_element(By.CSS_SELECTOR, f'button.tab[data-tab="{name}"]').click()
    return driver.find_element(By.ID, f"view-{name}")


def _no_errors(driver: Any) -> None:
    severe = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    assert not severe, severe


def _shot(driver: Any, name: str) -> None:
    assert driver.save_screenshot(str(ARTIFACTS / f"{name}.png"))


def test_citation_opens_the_evidence_card(browser: Any, pages: dict[str, Any]) -> None:
    _open(browser, pages["paths"]["run"])
    report = next(e for e in pages["a"].events if e.type == "report_written").report
    first_claim = report.sections[0].claims[0]
    # The viewer shows the card as the ledger made it (context included); the report keeps its quote only.
    card = next(e.card for e in pages["a"].events if e.type == "card_created"
                and e.card.card_id == first_claim.citations[0])
    checker = [e.record.checker for e in pages["a"].events
               if e.type == "verdict_reached" and e.record.claim_id == first_claim.claim_id][-1]
    browser.find_element(By.CSS_SELECTOR, f'li.claim[data-claim="{first_claim.claim_id}"] button.cite').click()
    panel = browser.find_element(By.ID, "evidence-panel")
    WebDriverWait(browser, 5).until(lambda d: panel.is_displayed())
    assert panel.find_element(By.CSS_SELECTOR, ".ev-context mark.ev-quote").text == card.quote.strip()
    assert card.context.strip() == panel.find_element(By.CSS_SELECTOR, ".ev-context").text.strip()
    text = panel.text
    for needle in (card.title, card.evidence_type, "authority", "freshness", "primacy", "relevance",
                   "independent sources", "mirrors", f"checker: {checker}", first_claim.verdict):
        assert needle in text, needle
    panel.find_element(By.XPATH, ".//button[contains(., 'whole document')]").click()
    assert card.quote.strip() in panel.find_element(By.CSS_SELECTOR, ".doc-text mark").text
    _shot(browser, "report-evidence")
    _no_errors(browser)


def test_the_report_states_its_answer_first(browser: Any, pages: dict[str, Any]) -> None:
    _open(browser, pages["paths"]["run"])
    answer = next(e for e in pages["a"].events if e.type == "report_written").report.answer
    box = browser.find_element(By.CSS_SELECTOR, ".box.answer")
    assert box.text.startswith("Answer: ")
    if answer.status == "answered":
        assert box.find_element(By.CSS_SELECTOR, ".answer-text").text == answer.text
        assert box.find_elements(By.CSS_SELECTOR, "button.cite"), "the answer's citations are clickable"
    else:
        assert answer.reason in box.text
    _shot(browser, "answer")
    _no_errors(browser)


def test_timeline_decisions_and_event_search(browser: Any, pages: dict[str, Any]) -> None:
    _open(browser, pages["paths"]["run"])
    run = pages["a"]
    timeline = _tab(browser, "timeline")
    headings = [h.text for h in timeline.find_elements(By.CSS_SELECTOR, ".round > h3")]
    assert headings[0] == "Plan" and "Round 1" in headings and headings[-1].startswith("Claims")
    query = next(e for e in run.events if e.type == "query_issued")
    row = timeline.find_element(By.CSS_SELECTOR, f'.tl-event[data-seq="{query.seq}"]')
    assert query.query in row.text
    assert timeline.find_elements(By.CSS_SELECTOR, f'.lane[data-subq="{query.subq}"]')
    _shot(browser, "timeline")

    decisions = _tab(browser, "decisions")
    stop = [e for e in run.events if e.type == "stop_decision"][-1]
    decisions.find_element(By.CSS_SELECTOR, f'.decision-item[data-seq="{stop.seq}"]').click()
    inspector = browser.find_element(By.ID, "decision-inspector")
    assert f"stop_decision #{stop.seq}" in inspector.text
    assert f"{stop.policy.name} {stop.policy.version}" in inspector.text
    assert inspector.find_element(By.CSS_SELECTOR, "tr.chosen").text == stop.choice
    assert "coverage_target" in inspector.text and "not an LLM policy" in inspector.text
    read = next(e for e in run.events if e.type == "read_decision")
    decisions.find_element(By.CSS_SELECTOR, f'.decision-item[data-seq="{read.seq}"]').click()
    chosen = [r.text.split()[0] for r in inspector.find_elements(By.CSS_SELECTOR, "tr.chosen")]
    assert chosen == [d for d in read.candidates if d in read.choice]
    _shot(browser, "decisions")

    events = _tab(browser, "events")
    search = events.find_element(By.ID, "event-search")
    search.send_keys(query.query[:25])
    shown = [r for r in events.find_elements(By.CSS_SELECTOR, ".event-row") if r.is_displayed()]
    assert shown and len(shown) < len(run.events)
    assert any(r.get_attribute("data-seq") == str(query.seq) for r in shown)
    assert browser.find_element(By.ID, "event-count").text.endswith(f"of {len(run.events)} events")
    _no_errors(browser)


def test_corpus_markup_stays_text(browser: Any, pages: dict[str, Any]) -> None:
    _open(browser, pages["paths"]["hostile"])
    # Render every view and open every card, decision and event JSON: all text the page can show.
    browser.execute_script("""
        for (const b of document.querySelectorAll('button.cite')) {
          b.click();
          for (const d of document.querySelectorAll('#evidence-panel button')) if (d.textContent.includes('whole document')) d.click();
        }
        for (const name of ['timeline', 'decisions', 'events', 'run']) {
          document.querySelector('button.tab[data-tab="' + name + '"]').click();
          for (const x of document.querySelectorAll('#view-' + name + ' .decision-item, #view-' + name + ' .event-row .line, #view-' + name + ' details')) {
            if (x.tagName === 'DETAILS') x.open = true; else x.click();
          }
        }""")
    assert browser.find_elements(By.CSS_SELECTOR, "#view-events pre.json")
    _tab(browser, "report")
    shown = browser.execute_script("return document.body.innerText")
    assert vr.SCRIPT_TAG in shown and vr.IMG_TAG in shown, "hostile text must show, as text"
    assert browser.execute_script("return typeof window.__pwned") == "undefined"
    assert browser.execute_script("return document.querySelectorAll('img, b[onmouseover], [onerror]').length") == 0
    assert browser.execute_script("return document.scripts.length") == 2
    assert browser.title.startswith("citeloop")
    _shot(browser, "hostile-corpus")
    _no_errors(browser)


def test_llm_fields_in_the_decision_inspector(browser: Any, pages: dict[str, Any]) -> None:
    _open(browser, pages["paths"]["llm"])
    _tab(browser, "decisions").find_element(By.CSS_SELECTOR, f'.decision-item[data-seq="{pages["llm_seq"]}"]').click()
    fields = {f.get_attribute("data-field"): f.text for f in browser.find_elements(By.CSS_SELECTOR, "#decision-inspector .llm-field")}
    assert set(fields) == {"prompt", "completion", "logprobs"}
    assert "<script>window.__pwned=1</script>" in fields["prompt"] and '"logprob": -0.01' in fields["logprobs"]
    assert browser.execute_script("return typeof window.__pwned") == "undefined"


def test_diff_and_eval_pages(browser: Any, pages: dict[str, Any]) -> None:
    _open(browser, pages["paths"]["diff"])
    diff = browser.find_element(By.ID, "view-diff")
    assert diff.is_displayed() and "First divergence at seq" in diff.text
    assert diff.find_elements(By.CSS_SELECTOR, "tr.diverge")
    _shot(browser, "diff")
    timeline = _tab(browser, "timeline")
    assert len(timeline.find_elements(By.CSS_SELECTOR, ".tl-event.diverge")) <= 1
    browser.find_element(By.CSS_SELECTOR, "#run-switch button:last-child").click()
    assert browser.find_element(By.ID, "run-line").text.startswith("B ·")
    _no_errors(browser)

    _open(browser, pages["paths"]["eval"])
    table = browser.find_element(By.ID, "eval-table")
    assert {r.get_attribute("data-policy") for r in table.find_elements(By.CSS_SELECTOR, "tr[data-policy]")} == {"heuristic", "naive"}
    assert browser.find_elements(By.CSS_SELECTOR, "svg#eval-bars rect") and browser.find_elements(By.CSS_SELECTOR, "svg#eval-scatter circle")
    browser.find_element(By.CSS_SELECTOR, '#question-table tr[data-qid="q1"]').click()
    detail = browser.find_element(By.ID, "question-detail")
    assert "heuristic" in detail.text and "naive" in detail.text
    _shot(browser, "eval")
    detail.find_element(By.CSS_SELECTOR, "button.open-run").click()
    report = browser.find_element(By.ID, "view-report")
    assert report.is_displayed() and report.find_elements(By.CSS_SELECTOR, "button.cite")
    assert browser.execute_script("return CL.run.question") == "When was the Alpha bridge built?"
    _no_errors(browser)
