"""Training rows for the trained verifier's verdict model: labels, the exact inference prompt,
derived conflicts, and splits by claim (never by row)."""

from __future__ import annotations

import json
from pathlib import Path

from citeloop.eval.datasets import EvalQuestion, EvalSet, load_eval_set
from citeloop.eval.verdict_dataset import claim_rows, multihop_rows, negate, swap_number
from citeloop.eval.verifier_eval import claims_config
from citeloop.eval.verify_baselines import claim_split
from citeloop.runtime.corpus import Corpus, Document
from citeloop.runtime.llm import FakeChatClient
from citeloop.runtime.llm.trained_verifier import TrainedVerifier
from citeloop.runtime.verifier import EvidenceText, LexicalVerifier

VERIFIER = LexicalVerifier(claims_config())


def test_negation_and_number_swap() -> None:
    assert negate("The bridge was opened in 1932.") == "The bridge was not opened in 1932."
    assert negate("The bridge was not opened in 1932.") == "The bridge was opened in 1932."
    assert negate("Bridges span rivers.") is None
    swapped = swap_number("The bridge opened in 1932 with 4 lanes.", "k")
    assert swapped is not None and swapped != "The bridge opened in 1932 with 4 lanes."
    assert swapped.startswith("The bridge opened in 19") and swapped.endswith(" with 4 lanes.")
    assert swap_number("IL-10 binds its receptor.", "k") is None  # a number in a name is no quantity


def _wice_file(tmp_path: Path) -> Path:
    rows = [{"label": label, "supporting_sentences": [[1]], "meta": {"id": f"w{i}"}, "claim": claim,
             "evidence": ["(meta data) TITLE: Bridge", "The bridge opened in 1932.", "It is painted red."]}
            for i, (label, claim) in enumerate([("supported", "The bridge opened in 1932."),
                                                 ("partially_supported", "The red bridge opened in 1932 to great fanfare."),
                                                 ("not_supported", "The mayor resigned."),
                                                 ("supported", "The bridge is painted red.")])]
    path = tmp_path / "wice.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_claim_rows_map_labels_split_by_claim_and_use_the_inference_prompt(tmp_path: Path) -> None:
    eval_set = load_eval_set(str(_wice_file(tmp_path)))
    rows = claim_rows(eval_set, VERIFIER)
    every = rows["train"] + rows["test"]
    assert sorted(r["label"] for r in every) == ["entail", "entail", "irrelevant", "partial"]
    for split, found in rows.items():
        for r in found:
            assert {"train": "tune", "test": "validation"}[split] == claim_split("wice", r["claim_id"])
    # The prompt is byte for byte what the trained verifier sends for the same claim.
    row = next(r for r in every if r["claim_id"] == "w1")
    client = FakeChatClient(["partial"])
    doc = eval_set.corpus.get("wice-w1")
    TrainedVerifier(client, claims_config()).check(
        "k", row["prompt"][-1]["content"].split("\n")[0].removeprefix("Claim: "),
        [EvidenceText(card_id=f"wice-w1#s{i}", text=s) for i, s in enumerate(doc.sentence_list())])
    assert row["gray"]  # 2 of 5 terms aligned: in the claim sets' gray zone, so the model is asked
    assert [m.content for m in client.calls[0][0].messages] == [m["content"] for m in row["prompt"]]


def test_multihop_rows_derive_every_verdict_from_a_gold_sentence() -> None:
    doc = Document(id="d1", title="Bridge", text="x", sentences=[
        "The Alpha bridge was opened in 1932 by the mayor.", "Its towers are made of granite from Norway."])
    eval_set = EvalSet(name="hotpotqa", level="sentence", corpus=Corpus([doc], source="test"),
                       questions=[EvalQuestion(id="q1", question="When did the Alpha bridge open?", gold=[("d1", 0)])])
    rows = multihop_rows(eval_set, VERIFIER)
    split = {"tune": "train", "validation": "test"}[claim_split("hotpotqa", "q1")]
    assert not rows["test" if split == "train" else "train"]
    kinds = {r["kind"]: r for r in rows[split]}
    assert {k: r["label"] for k, r in kinds.items()} == {
        "gold": "entail", "distractor": "irrelevant", "extended": "partial", "negation": "conflict",
        "number": "conflict"}
    assert "was not opened" in kinds["negation"]["prompt"][-1]["content"]
    assert "granite" in kinds["distractor"]["prompt"][-1]["content"]  # the distractor is the evidence
    assert all(r["completion"] == [{"role": "assistant", "content": r["label"]}] for r in rows[split])
