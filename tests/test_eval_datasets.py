"""Loaders of the evaluation sets: real files, ids unique, gold maps onto the corpus.

The multihop sets load from the copy shipped in eval/data; SciFact and WiCE are not shipped,
so their tests skip unless `../shared/data` holds them."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

import citeloop.eval.datasets as datasets
from citeloop.eval.datasets import (BUILTIN_DATA_DIR, DEFAULT_DATA_DIR, SHARED_DATA_DIR, DatasetError, EvalSet,
                                    load_2wiki, load_eval_set, load_hotpotqa, load_musique, load_scifact,
                                    load_user_set, load_wice, wiki2_type)
from citeloop.runtime.session import ResearchKit

MULTIHOP_FILES = ("hotpotqa_100.json", "hotpotqa_100_corpus.json", "musique_100.json", "musique_100_corpus.json",
                  "2wiki_500.json", "2wiki_corpus.json", "LICENSE.HippoRAG.txt")
needs_scifact = pytest.mark.skipif(not (SHARED_DATA_DIR / "scifact" / "corpus.jsonl").is_file(),
                                   reason="SciFact is not shipped with citeloop and ../shared/data/scifact is absent")
needs_wice = pytest.mark.skipif(not (SHARED_DATA_DIR / "wice" / "claim_dev.jsonl").is_file(),
                                reason="WiCE is not shipped with citeloop and ../shared/data/wice is absent")


@pytest.fixture()
def no_shared_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh clone: no ../shared/data beside the repository."""
    missing = tmp_path / "no-shared-data"
    monkeypatch.setattr(datasets, "SHARED_DATA_DIR", missing)
    return missing


def _check(s: EvalSet, n_questions: int, n_docs: int) -> None:
    assert len(s.questions) == n_questions
    assert len(s.corpus) == n_docs
    ids = [q.id for q in s.questions]
    assert len(set(ids)) == len(ids), "question ids must be unique"
    for q in s.questions:
        for doc_id, index in q.gold:
            doc = s.corpus.get(doc_id)
            assert doc is not None, (q.id, doc_id)
            if index >= 0:
                assert index < len(doc.sentence_list()), (q.id, doc_id, index)
        for doc_id in q.doc_labels:
            assert s.corpus.get(doc_id) is not None


def test_hotpotqa_sentence_gold_on_the_embedded_corpus(kit: ResearchKit) -> None:
    s = load_hotpotqa(corpus=kit.corpus)
    _check(s, 100, len(kit.corpus))
    assert s.level == "sentence"
    assert {q.type for q in s.questions} == {"bridge", "comparison"}
    first = s.questions[0]
    assert first.question == "If Gallu is a demon Lilu is what?"
    titles = {(kit.corpus.get(d).title, i) for d, i in first.gold}
    assert titles == {("Alû", 3), ("Lilu (mythology)", 0)}
    assert all(q.gold for q in s.questions)


def test_musique_paragraph_gold(kit: ResearchKit) -> None:
    s = load_musique(corpus=kit.corpus)
    _check(s, 100, len(kit.corpus))
    assert s.level == "paragraph"
    assert all(q.gold and all(i == -1 for _, i in q.gold) for q in s.questions)
    assert all(d.startswith("musique-") for q in s.questions for d in q.gold_docs)
    assert {q.type for q in s.questions} >= {"2hop", "3hop1"}


def test_2wiki_title_gold_ids_and_types() -> None:
    s = load_2wiki()
    _check(s, 500, 6119)
    assert s.level == "title"
    assert s.corpus.documents[0].id == "2wiki-0000" and s.corpus.documents[0].title == "Teutberga"
    assert all(len(q.gold) in (2, 4) for q in s.questions), "every gold title is in the corpus"
    types = {q.type for q in s.questions}
    assert types == {"compositional", "comparison", "inference", "bridge_comparison"}
    assert s.config_overrides == {"budget.max_reads": 10}
    assert load_2wiki().corpus.fingerprint == s.corpus.fingerprint, "document ids are deterministic"


@pytest.mark.parametrize(("question", "n", "expected"), [
    ("Where was the place of death of the performer of song I Can'T See Myself Leaving You?", 2, "compositional"),
    ("Who is Henriette Of France (1727–1752)'s maternal grandfather?", 2, "inference"),
    ("Who is the father-in-law of Dinah Shore?", 2, "inference"),
    ("Was Jamie Curry or Alyaksey Vasilewski born first?", 2, "comparison"),
    ("Are both Cunaú River and Rio Verde (Mato Grosso Do Sul) located in the same country?", 2, "comparison"),
    ("Which film has the director born first, Shah Jahan Regency or Fatma Bacı?", 4, "bridge_comparison"),
    ("Which country Aristarete's father is from?", 2, "compositional"),
])
def test_2wiki_type_from_template(question: str, n: int, expected: str) -> None:
    assert wiki2_type(question, n) == expected


@needs_scifact
def test_scifact_claims_labels_and_rationales() -> None:
    s = load_scifact()
    _check(s, 809, 5183)
    labels = [lab for q in s.questions for lab in q.doc_labels.values()]
    assert len(labels) == 919
    assert labels.count("SUPPORT") == 370 and labels.count("CONTRADICT") == 194
    assert labels.count("NOT_ENOUGH_INFO") == 355
    claim = next(q for q in s.questions if q.id == "2")
    assert claim.doc_labels == {"scifact-13734012": "CONTRADICT"}
    assert claim.gold == [("scifact-13734012", 4)]
    doc = s.corpus.get("scifact-13734012")
    assert doc is not None and doc.sentences is not None, "abstracts keep their sentence split"


@needs_wice
def test_wice_claims_with_their_articles() -> None:
    s = load_wice()
    _check(s, 349, 349)
    q = s.questions[0]
    assert q.label == "partially_supported"
    assert q.gold_sets == [[(f"wice-{q.id}", 5), (f"wice-{q.id}", 15)], [(f"wice-{q.id}", 15), (f"wice-{q.id}", 17)]]
    doc = s.corpus.get(f"wice-{q.id}")
    assert doc is not None and doc.sentences is not None and doc.sentences[0].startswith("(meta data) TITLE")
    assert {q.label for q in s.questions} == {"supported", "partially_supported", "not_supported"}


def test_limit_keeps_the_first_questions() -> None:
    s = load_eval_set("musique").limit(3)
    assert [q.id for q in s.questions] == [q.id for q in load_musique().questions[:3]]


# --------------------------------------------------------------------------- where the files come from


def test_hotpotqa_loads_from_the_shipped_copy_without_shared_data(no_shared_data: Path) -> None:
    s = load_eval_set("hotpotqa")
    assert len(s.questions) == 100
    # Read off eval/data/multihop/hotpotqa_100.json: its first and last rows.
    first, last = s.questions[0], s.questions[-1]
    assert first.id == "5a77ec115542992a6e59dff7" and first.answer == "a spirit"
    assert first.question == "If Gallu is a demon Lilu is what?"
    assert last.id == "5a8501655542997175ce1f58" and last.answer == "Alice Nelson"
    assert all(q.gold for q in s.questions)


def test_the_shipped_copy_sits_in_the_package() -> None:
    assert BUILTIN_DATA_DIR == Path(datasets.__file__).resolve().parent / "data"
    assert DEFAULT_DATA_DIR == BUILTIN_DATA_DIR, "the old name still means the default --data"
    for name in (*MULTIHOP_FILES, "README.md"):
        assert (BUILTIN_DATA_DIR / "multihop" / name).is_file(), name
    readme = (BUILTIN_DATA_DIR / "multihop" / "README.md").read_text(encoding="utf-8")
    for licence in ("CC BY-SA 4.0", "CC BY 4.0", "Apache-2.0", "MIT", "OSU-NLP-Group/HippoRAG"):
        assert licence in readme, licence


@pytest.mark.skipif(not (SHARED_DATA_DIR / "multihop").is_dir(), reason="../shared/data/multihop is absent")
def test_the_shipped_copy_is_the_shared_files_verbatim() -> None:
    for name in MULTIHOP_FILES:
        shipped = hashlib.sha256((BUILTIN_DATA_DIR / "multihop" / name).read_bytes()).hexdigest()
        shared = hashlib.sha256((SHARED_DATA_DIR / "multihop" / name).read_bytes()).hexdigest()
        assert shipped == shared, name


def test_data_overrides_the_shipped_copy(tmp_path: Path) -> None:
    (tmp_path / "multihop").mkdir()
    rows = json.loads((BUILTIN_DATA_DIR / "multihop" / "hotpotqa_100.json").read_text(encoding="utf-8"))[:2]
    (tmp_path / "multihop" / "hotpotqa_100.json").write_text(json.dumps(rows), encoding="utf-8")
    s = load_eval_set("hotpotqa", tmp_path)
    assert [q.id for q in s.questions] == ["5a77ec115542992a6e59dff7", "5ae40c465542996836b02c25"]
    with pytest.raises(DatasetError, match="musique_100.json: data file not found"):
        load_eval_set("musique", tmp_path)


@pytest.mark.parametrize("name", ["scifact", "wice"])
def test_a_set_that_is_not_shipped_says_where_to_get_it(name: str, no_shared_data: Path) -> None:
    with pytest.raises(DatasetError) as info:
        load_eval_set(name)
    message = str(info.value)
    assert "not shipped with citeloop" in message and "--data" in message
    assert ("allenai/scifact" if name == "scifact" else "ryokamoi/wice") in message
    assert f"DIR/{name}/" in message


def test_a_data_dir_without_the_set_names_the_missing_file(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="--data") as info:
        load_eval_set("scifact", tmp_path)
    assert str(tmp_path / "scifact" / "claims_train.jsonl") in str(info.value)


@pytest.mark.parametrize("kind", ["missing", "file"])
def test_a_data_dir_that_is_not_a_directory(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "data"
    if kind == "file":
        path.write_text("not a folder", encoding="utf-8")
    for name in ("hotpotqa", "scifact"):
        with pytest.raises(DatasetError, match="not a directory") as info:
            load_eval_set(name, path)
        assert str(path) in str(info.value)


# --------------------------------------------------------------------------- user sets


@pytest.fixture()
def user_corpus(tmp_path: Path) -> Path:
    path = tmp_path / "corpus.jsonl"
    docs = [
        {"id": "a", "title": "Alpha", "text": "Alpha is a town in Ruritania. It has a famous bridge."},
        {"id": "b", "title": "Bridge of Alpha", "text": "The bridge of Alpha was built in 1820. It is made of stone."},
    ]
    path.write_text("".join(json.dumps(d) + "\n" for d in docs), encoding="utf-8")
    return path


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_user_question_set(tmp_path: Path, user_corpus: Path) -> None:
    questions = _write(tmp_path / "qs.jsonl", [
        {"id": "q1", "question": "When was the bridge of Alpha built?", "answer": "1820",
         "gold": [{"doc_id": "b", "sentence": 0}]},
        {"id": "q2", "question": "Where is Alpha?", "gold": [{"doc_id": "a"}]},
        {"id": "q3", "question": "What is Alpha famous for?"},
    ])
    s = load_eval_set(str(questions), corpus=user_corpus)
    assert s.name == "qs" and s.level == "paragraph"
    assert [q.gold for q in s.questions] == [[("b", 0)], [("a", -1)], []]
    assert s.questions[0].answer == "1820"
    sentence_only = load_user_set(_write(tmp_path / "s.jsonl", [
        {"id": "q1", "question": "When was it built?", "gold": [{"doc_id": "b", "sentence": 1}]}]), user_corpus)
    assert sentence_only.level == "sentence"


@pytest.mark.parametrize(("row", "message"), [
    ({"id": "q1", "question": "Q?", "gold": [{"doc_id": "zzz"}]}, "not in the corpus"),
    ({"id": "q1", "question": "Q?", "gold": [{"doc_id": "a", "sentence": 9}]}, "does not exist"),
    ({"id": "q1"}, "question"),
    ({"id": "q1", "question": "Q?", "gold": [{"doc": "a"}]}, "doc_id"),
])
def test_user_set_errors_name_the_line(tmp_path: Path, user_corpus: Path, row: dict, message: str) -> None:
    path = _write(tmp_path / "bad.jsonl", [{"id": "q0", "question": "Fine?"}, row])
    with pytest.raises(DatasetError, match=message) as info:
        load_user_set(path, user_corpus)
    assert "bad.jsonl:2" in str(info.value)


def test_user_set_duplicate_id(tmp_path: Path, user_corpus: Path) -> None:
    path = _write(tmp_path / "dup.jsonl", [{"id": "q", "question": "A?"}, {"id": "q", "question": "B?"}])
    with pytest.raises(DatasetError, match="duplicate question id"):
        load_user_set(path, user_corpus)


def test_unknown_dataset_name() -> None:
    with pytest.raises(DatasetError, match="unknown dataset 'hotpot'.*hotpotqa"):
        load_eval_set("hotpot")
