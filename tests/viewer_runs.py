"""Run files the viewer tests render: a real run, a second run of the same question by
another policy (for the diff page), a run over a corpus whose text carries markup and
script (for escaping), and a tiny eval.json with its runs (for the eval page)."""

from __future__ import annotations

import json
from pathlib import Path

from citeloop.eval.datasets import load_eval_set
from citeloop.runtime.corpus import load_corpus
from citeloop.runtime.index import BM25Index
from citeloop.runtime.session import ResearchKit, run_research

QUESTION = "Who directed the film that was shot in or around Leland, North Carolina in 1986?"
SCRIPT_TAG = "<script>window.__pwned=1</script>"
IMG_TAG = '<img src=x onerror="window.__pwned=1">'
HOSTILE_DOCS = [
    {"id": "leland", "title": "Leland, North Carolina <b onmouseover=\"window.__pwned=1\">town</b>",
     "text": "Leland is a town in Brunswick County, North Carolina. "
             f"Maximum Overdrive was shot in Leland {SCRIPT_TAG} in 1986. "
             f"A number of movies {IMG_TAG} have been shot in or around Leland. "
             "The town grew quickly in the 2000s."},
    {"id": "overdrive", "title": "Maximum Overdrive",
     "text": "Maximum Overdrive is a 1986 American science fiction horror film written and directed by Stephen King. "
             "</script><!-- <script>window.__pwned=1</script> The film stars Emilio Estevez."},
]


def real_run(kit: ResearchKit, out: Path, policy: str = "heuristic") -> Path:
    _, path = run_research(QUESTION, kit, policy_spec=policy, out_dir=out)
    assert path is not None
    return path


def hostile_run(tmp: Path) -> Path:
    """A run whose evidence, claims and report quote text with `<script>` and event attributes."""
    corpus_file = tmp / "hostile.jsonl"
    corpus_file.write_text("".join(json.dumps(d) + "\n" for d in HOSTILE_DOCS), encoding="utf-8")
    corpus = load_corpus(corpus_file)
    kit = ResearchKit(corpus=corpus, index=BM25Index.build(corpus, tmp / "hostile-idx"), index_seconds=0)
    _, path = run_research(QUESTION, kit, out_dir=tmp / "hostile-runs")
    assert path is not None
    return path


def tiny_eval(tmp: Path) -> tuple[Path, Path]:
    """`citeloop eval` on one question over a two-document corpus, and the same runs saved
    as files (their ids match the eval rows: run ids are content-addressed)."""
    from citeloop.eval.cli import main

    corpus = tmp / "corpus.jsonl"
    corpus.write_text(
        json.dumps({"id": "a", "title": "Alpha", "text": "Alpha is a town in Ruritania. Its bridge is old."}) + "\n"
        + json.dumps({"id": "b", "title": "Alpha bridge", "text": "The Alpha bridge was built in 1820."}) + "\n",
        encoding="utf-8")
    questions = tmp / "qs.jsonl"
    questions.write_text(json.dumps({"id": "q1", "question": "When was the Alpha bridge built?", "answer": "1820",
                                     "gold": [{"doc_id": "b", "sentence": 0}]}) + "\n", encoding="utf-8")
    out = tmp / "eval-out"
    assert main(["eval", "--dataset", str(questions), "--corpus", str(corpus), "--policies", "heuristic,naive",
                 "--out", str(out), "--json"]) == 0
    eval_set = load_eval_set(str(questions), None, corpus)
    kit = ResearchKit(corpus=eval_set.corpus, index=BM25Index.build(eval_set.corpus), index_seconds=0)
    runs = tmp / "eval-runs"
    for planner, policy in (("rule", "heuristic"), ("naive", "naive")):
        run_research(eval_set.questions[0].question, kit, policy_spec=policy, planner=planner, out_dir=runs)
    return out / "eval.json", runs
