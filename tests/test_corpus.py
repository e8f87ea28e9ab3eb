"""Corpus loading: the embedded corpus, JSONL error reporting, the builder, sentences."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citeloop.eval.datasets import BUILTIN_DATA_DIR
from citeloop.runtime.corpus import (
    Corpus,
    CorpusError,
    Document,
    build_multihop_corpus,
    load_corpus,
    load_embedded_corpus,
)
from citeloop.runtime.sentences import split_sentences

# The multihop files the embedded corpus is built from ship with citeloop (eval/data/multihop).
MULTIHOP_DATA = BUILTIN_DATA_DIR


@pytest.fixture(scope="module")
def embedded() -> Corpus:
    return load_embedded_corpus()


def test_embedded_corpus_counts_and_ids(embedded: Corpus) -> None:
    assert embedded.source == "embedded"
    assert len(embedded) == 2884
    ids = [d.id for d in embedded]
    assert len(set(ids)) == len(ids)
    assert sum(i.startswith("hotpotqa-") for i in ids) == 994
    assert sum(i.startswith("musique-") for i in ids) == 1890
    assert ids[0] == "hotpotqa-0000" and ids[-1] == "musique-1889"
    assert embedded.cutoff is None  # Wikipedia paragraphs are undated


def test_embedded_document_metadata(embedded: Corpus) -> None:
    doc = next(d for d in embedded if d.title == "Leland, North Carolina")
    assert doc.url == "https://en.wikipedia.org/wiki/Leland,_North_Carolina"
    assert doc.publisher == "Wikipedia" and doc.source_type == "reference_work"
    assert doc.sentences is not None
    assert all(s == s.strip() and s for s in doc.sentences)
    assert doc.text == " ".join(doc.sentences)
    assert embedded.get("no-such-id") is None


def test_fingerprint_is_stable_and_content_addressed(embedded: Corpus, tmp_path: Path) -> None:
    again = load_embedded_corpus()
    assert again.fingerprint == embedded.fingerprint
    assert len(embedded.fingerprint) == 64
    docs = embedded.documents[:3]
    changed = [docs[0].model_copy(update={"title": "Other"}), *docs[1:]]
    assert Corpus(docs, "a").fingerprint != Corpus(changed, "a").fingerprint
    assert Corpus(docs, "a").fingerprint != Corpus(list(reversed(docs)), "a").fingerprint


def test_cutoff_is_latest_date() -> None:
    docs = [
        Document(id="a", title="A", text="x.", published="2021-03-01"),
        Document(id="b", title="B", text="y.", published="2023-01-15"),
        Document(id="c", title="C", text="z."),
    ]
    assert Corpus(docs, "mem").cutoff == "2023-01-15"


def test_builder_matches_shipped_file(embedded: Corpus) -> None:
    built = build_multihop_corpus(MULTIHOP_DATA)
    assert [d.model_dump(exclude_none=True) for d in built] == [
        d.model_dump(exclude_none=True) for d in embedded
    ]


def test_hotpot_gold_sentence_indices_stay_exact(embedded: Corpus) -> None:
    questions = json.loads((MULTIHOP_DATA / "multihop" / "hotpotqa_100.json").read_text(encoding="utf-8"))
    by_title = {d.title: d for d in embedded if d.id.startswith("hotpotqa-")}
    checked = 0
    for q in questions:
        context = {title: sents for title, sents in q["context"]}
        for title, index in q["supporting_facts"]:
            if title in by_title and index < len(context[title]):
                assert by_title[title].sentence_list()[index] == context[title][index].strip()
                checked += 1
    assert checked > 150


def _write(tmp_path: Path, lines: list[str]) -> Path:
    path = tmp_path / "c.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


GOOD = json.dumps({"id": "d1", "title": "T", "text": "Some text."})


@pytest.mark.parametrize(
    ("bad_line", "message"),
    [
        ('{"id": "d2", "title": ', "invalid JSON"),
        (json.dumps({"id": "d2", "text": "x"}), "missing field 'title'"),
        (json.dumps({"id": "d2", "title": 5, "text": "x"}), "wrong type for field 'title'"),
        (json.dumps({"id": "d1", "title": "T", "text": "x"}), "duplicate document id 'd1'"),
        (json.dumps({"id": "d2", "title": "T", "text": "x", "author": "me"}), "unknown field 'author'"),
        (json.dumps({"id": "d2", "title": "T", "text": "   "}), "field 'text'"),
        (json.dumps(["not", "an", "object"]), "expected a JSON object"),
    ],
)
def test_malformed_line_names_file_and_line(tmp_path: Path, bad_line: str, message: str) -> None:
    path = _write(tmp_path, [GOOD, "", bad_line])
    with pytest.raises(CorpusError) as info:
        load_corpus(path)
    text = str(info.value)
    assert f"{path}:3:" in text
    assert message in text


def test_missing_file_and_empty_corpus(tmp_path: Path) -> None:
    with pytest.raises(CorpusError, match="not found"):
        load_corpus(tmp_path / "absent.jsonl")
    with pytest.raises(CorpusError, match="empty"):
        load_corpus(_write(tmp_path, [""]))


def test_loads_valid_jsonl_and_zst(tmp_path: Path) -> None:
    line2 = json.dumps({"id": "d2", "title": "U", "text": "Alpha beta. Gamma delta.", "published": "2020"})
    path = _write(tmp_path, [GOOD, line2])
    corpus = load_corpus(path)
    assert corpus.source == str(path) and len(corpus) == 2
    assert corpus.get("d2").sentence_list() == ["Alpha beta.", "Gamma delta."]
    zstandard = pytest.importorskip("zstandard")
    zpath = tmp_path / "c.jsonl.zst"
    zpath.write_bytes(zstandard.ZstdCompressor().compress(path.read_bytes()))
    assert load_corpus(zpath).fingerprint == corpus.fingerprint


def test_given_sentences_define_the_split() -> None:
    doc = Document(id="x", title="X", text="Dr. A met B. Then left.", sentences=["Dr. A met B. Then left."])
    assert doc.sentence_list() == ["Dr. A met B. Then left."]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Dr. Smith lives in the U.S. now. He is 3.5 m tall!", ["Dr. Smith lives in the U.S. now.", "He is 3.5 m tall!"]),
        ("J. R. R. Tolkien wrote it. Really? Yes.", ["J. R. R. Tolkien wrote it.", "Really?", "Yes."]),
        ("Use tools, e.g. hammers, i.e. Mr. Jr. St. Louis. Next.", ["Use tools, e.g. hammers, i.e. Mr. Jr. St. Louis.", "Next."]),
        ("他来了。她走了！真的？好", ["他来了。", "她走了！", "真的？", "好"]),
        ('He said "stop." Then left.', ['He said "stop."', "Then left."]),
        ("  \n ", []),
    ],
)
def test_split_sentences(text: str, expected: list[str]) -> None:
    assert split_sentences(text) == expected
