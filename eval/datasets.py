"""Evaluation sets: the five gold data sets and a user's own questions, as one model.

Every loader returns an `EvalSet`: the questions (or claims) with their gold evidence units
and the `Corpus` to search. A gold unit is `(doc id, sentence index)`; index -1 means the
whole document (paragraph- or title-level gold). Claim sets (SciFact, WiCE) also carry,
per claim, the documents it is checked against and the gold label for each.

| name     | questions                  | gold level | corpus                                        |
|----------|----------------------------|------------|-----------------------------------------------|
| hotpotqa | hotpotqa_100.json          | sentence   | embedded multihop corpus (HotpotQA + MuSiQue) |
| musique  | musique_100.json           | paragraph  | embedded multihop corpus                      |
| 2wiki    | 2wiki_500.json             | title      | 2wiki_corpus.json, ids `2wiki-NNNN` in order  |
| scifact  | claims_train.jsonl         | sentence   | corpus.jsonl, ids `scifact-DOCID`, pre-split  |
| wice     | claim_dev.jsonl            | sentence   | one document per claim, `wice-ID`, pre-split  |

A path to a JSONL file loads as a claim set when its rows are SciFact or WiCE claims (the
first row decides; a SciFact file reads its abstracts from `--corpus` or the corpus.jsonl
beside it), else as a question file of the user's own.

HotpotQA and MuSiQue use the embedded corpus (the union of both samples, built from the
same files by `citeloop.runtime.corpus.build_multihop_corpus`), so their numbers compare with
`eval.bench_runtime` and with `citeloop research` on its default corpus.

Where the files come from: the multihop sets (hotpotqa, musique, 2wiki) ship with citeloop
in `BUILTIN_DATA_DIR` (eval/data/, license notes in eval/data/multihop/README.md) and load
from there unless a data directory is given (`--data DIR`, laid out as `DIR/multihop/`).
SciFact and WiCE are not shipped: without `--data` they load from `../shared/data` beside
the repository when it holds them (`SHARED_DATA_DIR`), else `DatasetError` says where to
get them.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from citeloop.runtime.corpus import Corpus, CorpusError, Document, load_corpus, load_embedded_corpus
from citeloop.trajectories.errors import ErrorWording, validation_message
from citeloop.trajectories.jsonl import read_json_lines

Unit = tuple[str, int]
Level = Literal["sentence", "paragraph", "title"]
Task = Literal["research", "verify"]
ClaimFormat = Literal["scifact", "wice"]

DATASETS = ("hotpotqa", "musique", "2wiki", "scifact", "wice")
BUILTIN_DATA_DIR = Path(__file__).resolve().parent / "data"
"""The shipped copy of the multihop files (`BUILTIN_DATA_DIR / "multihop" / ...`)."""
DEFAULT_DATA_DIR = BUILTIN_DATA_DIR
"""The default `--data` of the multihop loaders and the benchmarks (the shipped copy)."""
SHARED_DATA_DIR = Path(__file__).resolve().parents[2] / "shared" / "data"
"""The fallback for the sets that are not shipped (SciFact, WiCE): `../shared/data` beside the
repository, used only when it holds the set."""

MULTIHOP = ("hotpotqa", "musique", "2wiki")
NOT_SHIPPED = {
    "scifact": ("SciFact", "the SciFact release (Wadden et al., 2020; repository allenai/scifact)",
                "corpus.jsonl and claims_*.jsonl (claims_train.jsonl is read)"),
    "wice": ("WiCE", "the WiCE release (Kamoi et al., 2023; repository ryokamoi/wice), entailment-retrieval "
                     "claim split", "claim_dev.jsonl"),
}


class DatasetError(ValueError):
    """A data set cannot be loaded; the message names the file and the problem."""


def set_names(text: str, valid: tuple[str, ...] = MULTIHOP) -> list[str]:
    """The names of a benchmark's comma-separated `--sets`, each one of `valid`; a DatasetError
    names the unknown ones (a benchmark prints it as its one error line)."""
    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in valid]
    if unknown or not names:
        raise DatasetError(f"unknown set {', '.join(map(repr, unknown))} in --sets; valid: {', '.join(valid)}"
                           if unknown else f"--sets names no set; valid: {', '.join(valid)}")
    return names


def sets_or_error(text: str, valid: tuple[str, ...] = MULTIHOP) -> list[str] | None:
    """`set_names` for a benchmark's main: None after printing its `error:` line (the main returns 2)."""
    try:
        return set_names(text, valid)
    except DatasetError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return None


def model_folder_or_error(path: Path) -> bool:
    """Whether `path` holds a model (config.json); if not, a benchmark's main prints its `error:` line."""
    if (path / "config.json").is_file():
        return True
    print(f"error: {path} is not a model folder (no config.json); `citeloop model prepare --out DIR`", file=sys.stderr)
    return False


class EvalQuestion(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    """Id from the data set (stringified)."""
    question: str
    """The question to research, or the claim to verify."""
    answer: str | None = None
    aliases: list[str] = Field(default_factory=list)
    """Other accepted answers."""
    label: str | None = None
    """Claim-level gold label (WiCE: supported / partially_supported / not_supported)."""
    type: str | None = None
    """Question type: bridge/comparison (HotpotQA), 2hop/3hop1/... (MuSiQue),
    compositional/comparison/inference/bridge_comparison (2Wiki), claim (SciFact, WiCE)."""
    gold: list[Unit] = Field(default_factory=list)
    """Gold evidence units (doc id, sentence index; -1 = whole document)."""
    gold_sets: list[list[Unit]] = Field(default_factory=list)
    """Alternative minimal gold sets, where the data set gives them (WiCE)."""
    doc_labels: dict[str, str] = Field(default_factory=dict)
    """Documents a claim is verified against -> gold label for that pair (SciFact, WiCE)."""

    @property
    def gold_docs(self) -> frozenset[str]:
        return frozenset(d for d, _ in self.gold)


class EvalSet(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    name: str
    level: Level
    questions: list[EvalQuestion]
    corpus: Corpus
    tasks: tuple[Task, ...] = ("research",)
    """What the set supports; the first is the default."""
    claim_format: ClaimFormat | None = None
    """For a claim set, whose labels it carries (SciFact's or WiCE's), so a claim file of
    either format is scored with that format's verdict mapping."""
    config_overrides: dict[str, object] = Field(default_factory=dict)
    """Research config settings the benchmark is defined with (e.g. 2Wiki's read budget)."""
    notes: list[str] = Field(default_factory=list)

    def limit(self, n: int | None) -> EvalSet:
        return self if n is None else self.model_copy(update={"questions": self.questions[:n]})


def _not_shipped(name: str) -> str:
    title, source, files = NOT_SHIPPED[name]
    return (f"{title} is not shipped with citeloop: get it from {source}, put {files} under DIR/{name}/, "
            f"and pass --data DIR")


def claims_data_dir(name: str, data_dir: Path | None) -> Path:
    """The data directory for a set that is not shipped (`scifact`, `wice`): `data_dir` when
    given, else `SHARED_DATA_DIR` when it holds the set; otherwise a `DatasetError` that says
    where to get it and to pass --data."""
    if data_dir is not None:
        return Path(data_dir)
    if (SHARED_DATA_DIR / name).is_dir():
        return SHARED_DATA_DIR
    raise DatasetError(_not_shipped(name))


def _claims_file(name: str, data_dir: Path, filename: str) -> Path:
    path = data_dir / name / filename
    if not path.is_file():
        raise DatasetError(f"{path}: data file not found; {_not_shipped(name)}")
    return path


def _read_json(path: Path) -> object:
    if not path.is_file():
        hint = "" if path.parent == BUILTIN_DATA_DIR / "multihop" else \
            f" (the shipped copy is in {BUILTIN_DATA_DIR}; leave out --data to use it)"
        raise DatasetError(f"{path}: data file not found{hint}")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise DatasetError(f"{path}: invalid JSON ({exc.msg} at line {exc.lineno})") from None


def _read_jsonl(path: Path) -> Iterable[tuple[int, dict]]:
    if not path.is_file():
        raise DatasetError(f"{path}: data file not found")
    with path.open(encoding="utf-8") as handle:
        yield from read_json_lines(handle, str(path), DatasetError)


# --------------------------------------------------------------------------- multihop


HOTPOTQA_FILE = "hotpotqa_100.json"
MUSIQUE_FILE = "musique_100.json"


def hotpotqa_questions(path: Path, corpus: Corpus) -> list[EvalQuestion]:
    """The questions of a HotpotQA file, with sentence-level gold in `corpus` (its `hotpotqa-` documents)."""
    by_title = {d.title: d.id for d in corpus if d.id.startswith("hotpotqa-")}
    questions = []
    for row in _read_json(Path(path)):  # type: ignore[union-attr]
        gold = sorted({(by_title[t], i) for t, i in row["supporting_facts"] if t in by_title})
        questions.append(EvalQuestion(id=row["_id"], question=row["question"], answer=row["answer"],
                                      type=row.get("type"), gold=gold))
    return questions


def musique_questions(path: Path, corpus: Corpus) -> list[EvalQuestion]:
    """The questions of a MuSiQue file, with paragraph-level gold in `corpus` (its `musique-` documents)."""
    # MuSiQue titles repeat across passages, so a passage is its (title, text).
    by_content = {(d.title, d.text.strip()): d.id for d in corpus if d.id.startswith("musique-")}
    questions = []
    for row in _read_json(Path(path)):  # type: ignore[union-attr]
        keys = [(p["title"], p["paragraph_text"].strip()) for p in row["paragraphs"] if p["is_supporting"]]
        gold = sorted({(by_content[k], -1) for k in keys if k in by_content})
        questions.append(EvalQuestion(id=row["id"], question=row["question"], answer=row["answer"],
                                      aliases=row.get("answer_aliases", []), type=row["id"].split("__")[0],
                                      gold=gold))
    return questions


def load_hotpotqa(data_dir: Path = BUILTIN_DATA_DIR, corpus: Corpus | None = None) -> EvalSet:
    corpus = corpus or load_embedded_corpus()
    questions = hotpotqa_questions(Path(data_dir) / "multihop" / HOTPOTQA_FILE, corpus)
    return EvalSet(name="hotpotqa", level="sentence", questions=questions, corpus=corpus)


def load_musique(data_dir: Path = BUILTIN_DATA_DIR, corpus: Corpus | None = None) -> EvalSet:
    corpus = corpus or load_embedded_corpus()
    questions = musique_questions(Path(data_dir) / "multihop" / MUSIQUE_FILE, corpus)
    return EvalSet(name="musique", level="paragraph", questions=questions, corpus=corpus)


_INFERENCE = re.compile(r"grand(father|mother|son|daughter)|(father|mother|son|daughter|brother|sister)-in-law|"
                        r"step(father|mother)|\buncle\b|\baunt\b|\bnephew\b|\bniece\b|\bcousin\b", re.IGNORECASE)
_COMPARISON = re.compile(r"\bor\b[^?]*\?\s*$|\bsame (country|nationality)\b|\bboth\b|\bfirst out of\b",
                         re.IGNORECASE)


def wiki2_type(question: str, n_gold_titles: int) -> str:
    """2WikiMultihopQA's question type, recovered from the question template.

    The shared sample drops the `type` field, so it is derived: four gold titles are the
    two-entities-two-bridges template (bridge_comparison); kinship chains are inference;
    "X or Y" / "same country" are comparison; the rest are compositional chains.
    """
    if n_gold_titles >= 4:
        return "bridge_comparison"
    if _INFERENCE.search(question):
        return "inference"
    if _COMPARISON.search(question):
        return "comparison"
    return "compositional"


def load_2wiki_corpus(data_dir: Path = BUILTIN_DATA_DIR) -> Corpus:
    path = Path(data_dir) / "multihop" / "2wiki_corpus.json"
    passages = _read_json(path)
    docs = [Document(id=f"2wiki-{i:04d}", title=p["title"], text=p["text"].strip(), publisher="Wikipedia",
                     source_type="reference_work")
            for i, p in enumerate(passages)]  # type: ignore[arg-type]
    return Corpus(docs, source=str(path))


def load_2wiki(data_dir: Path = BUILTIN_DATA_DIR, corpus: Corpus | None = None) -> EvalSet:
    corpus = corpus or load_2wiki_corpus(data_dir)
    by_title = {d.title: d.id for d in corpus}
    questions = []
    missing = 0
    for row in _read_json(Path(data_dir) / "multihop" / "2wiki_500.json"):  # type: ignore[union-attr]
        titles = row["supporting_facts"]
        missing += sum(t not in by_title for t in titles)
        questions.append(EvalQuestion(
            id=row["id"], question=row["question"].strip(), answer=row["answer"],
            aliases=row.get("answer_aliases", []), type=row.get("type") or wiki2_type(row["question"], len(titles)),
            gold=sorted({(by_title[t], -1) for t in titles if t in by_title}),
        ))
    notes = ["question type derived from the question template (the shared file has no `type`)"]
    if missing:
        notes.append(f"{missing} gold titles are not in the corpus")
    return EvalSet(name="2wiki", level="title", questions=questions, corpus=corpus,
                   config_overrides={"budget.max_reads": 10}, notes=notes)


# --------------------------------------------------------------------------- claims


SCIFACT_NEI = "NOT_ENOUGH_INFO"


def _scifact_corpus_file(path: Path) -> Corpus:
    docs = []
    for lineno, row in _read_jsonl(path):
        sentences = [s.strip() for s in row["abstract"]]
        if not sentences or not all(sentences):
            raise DatasetError(f"{path}:{lineno}: abstract has an empty sentence")
        docs.append(Document(id=f"scifact-{row['doc_id']}", title=row["title"].strip() or str(row["doc_id"]),
                             text=" ".join(sentences), sentences=sentences, source_type="research_article"))
    return Corpus(docs, source=str(path))


def load_scifact_corpus(data_dir: Path | None = None) -> Corpus:
    return _scifact_corpus_file(_claims_file("scifact", claims_data_dir("scifact", data_dir), "corpus.jsonl"))


def scifact_questions(path: Path) -> list[EvalQuestion]:
    """The claims of a SciFact claims file: gold = rationale sentences; doc_labels = every
    cited abstract's label (SUPPORT / CONTRADICT where it is evidence, NOT_ENOUGH_INFO where
    it is cited but not)."""
    questions = []
    for _, row in _read_jsonl(path):
        gold: set[Unit] = set()
        labels: dict[str, str] = {}
        for doc_id in row["cited_doc_ids"]:
            labels[f"scifact-{doc_id}"] = SCIFACT_NEI
        for doc_id, rationales in row["evidence"].items():
            key = f"scifact-{doc_id}"
            # All rationales of one (claim, abstract) share a label in SciFact.
            labels[key] = rationales[0]["label"]
            gold.update((key, i) for r in rationales for i in r["sentences"])
        questions.append(EvalQuestion(id=str(row["id"]), question=row["claim"], type="claim",
                                      gold=sorted(gold), doc_labels=labels))
    return questions


def load_scifact(data_dir: Path | None = None, corpus: Corpus | None = None) -> EvalSet:
    """SciFact's train claims against its corpus (see `scifact_questions`)."""
    data_dir = claims_data_dir("scifact", data_dir)
    claims = _claims_file("scifact", data_dir, "claims_train.jsonl")
    corpus = corpus or load_scifact_corpus(data_dir)
    return EvalSet(name="scifact", level="sentence", questions=scifact_questions(claims), corpus=corpus,
                   tasks=("verify", "research"), claim_format="scifact")


def wice_claims(path: Path) -> tuple[list[Document], list[EvalQuestion]]:
    """The claims of a WiCE file, each with its cited article as one document (`wice-ID`,
    its sentences as given)."""
    docs, questions = [], []
    for lineno, row in _read_jsonl(path):
        qid = str(row["meta"]["id"])
        doc_id = f"wice-{qid}"
        if not row["evidence"]:
            raise DatasetError(f"{path}:{lineno}: claim has no evidence sentences")
        # Keep every index valid: a blank line of the scrape becomes a placeholder.
        sentences = [s.strip() or "(empty)" for s in row["evidence"]]
        title = sentences[0].removeprefix("(meta data) TITLE:").strip()
        docs.append(Document(id=doc_id, title=title or qid, text=" ".join(sentences), sentences=sentences))
        sets = [sorted((doc_id, i) for i in s) for s in row["supporting_sentences"]]
        questions.append(EvalQuestion(id=qid, question=row["claim"], label=row["label"], type="claim",
                                      gold=sorted({u for s in sets for u in s}), gold_sets=sets,
                                      doc_labels={doc_id: row["label"]}))
    return docs, questions


def load_wice(data_dir: Path | None = None) -> EvalSet:
    """WiCE's dev claims (see `wice_claims`)."""
    path = _claims_file("wice", claims_data_dir("wice", data_dir), "claim_dev.jsonl")
    docs, questions = wice_claims(path)
    return EvalSet(name="wice", level="sentence", questions=questions, corpus=Corpus(docs, source=str(path)),
                   tasks=("verify", "research"), claim_format="wice")


def claim_file_format(path: Path) -> ClaimFormat | None:
    """"scifact" or "wice" when the first row of a JSONL file has that release's claim
    fields (SciFact: claim, evidence, cited_doc_ids; WiCE: claim, evidence, label,
    supporting_sentences, meta), else None (a question file)."""
    for _, row in _read_jsonl(path):
        keys = set(row) if isinstance(row, dict) else set()
        if {"claim", "evidence", "cited_doc_ids"} <= keys:
            return "scifact"
        if {"claim", "evidence", "label", "supporting_sentences", "meta"} <= keys:
            return "wice"
        return None
    return None


def load_claim_file(path: Path, corpus: str | Path | None = None) -> EvalSet:
    """A SciFact- or WiCE-format claim file as a claim set named after the file. A SciFact
    file needs its abstracts: `corpus` (a SciFact corpus.jsonl), else the corpus.jsonl
    beside the claims file, as in the SciFact release."""
    path = Path(path)
    fmt = claim_file_format(path)
    if fmt == "scifact":
        corpus_path = Path(corpus) if corpus is not None else path.parent / "corpus.jsonl"
        if not corpus_path.is_file():
            raise DatasetError(f"{path}: a SciFact claims file needs its corpus: no {corpus_path}; "
                               f"pass --corpus CORPUS.jsonl (SciFact's corpus.jsonl)")
        questions = scifact_questions(path)
        loaded = _scifact_corpus_file(corpus_path)
        missing = sorted({d for q in questions for d in q.doc_labels if loaded.get(d) is None})
        notes = [f"{len(missing)} cited documents are not in {corpus_path} and are skipped"] if missing else []
        return EvalSet(name=path.stem, level="sentence", questions=questions, corpus=loaded,
                       tasks=("verify", "research"), claim_format="scifact", notes=notes)
    if fmt == "wice":
        docs, questions = wice_claims(path)
        return EvalSet(name=path.stem, level="sentence", questions=questions, corpus=Corpus(docs, source=str(path)),
                       tasks=("verify", "research"), claim_format="wice")
    raise DatasetError(f"{path}: not a SciFact or WiCE claim file")


# --------------------------------------------------------------------------- user sets


class _UserGold(BaseModel):
    model_config = ConfigDict(extra="forbid")
    doc_id: str
    sentence: int | None = Field(None, ge=0)


_ROW_WORDING = ErrorWording(whole="row")
"""`loc: message` per problem; a problem with the whole row says `row: ...`."""


class _UserQuestion(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str
    question: str
    answer: str | None = None
    type: str | None = None
    gold: list[_UserGold] = Field(default_factory=list)


def load_user_set(path: str | Path, corpus: Corpus | str | Path | None = None) -> EvalSet:
    """A JSONL file of `{id, question, answer?, type?, gold?: [{doc_id, sentence?}]}` against
    `corpus` (a Corpus, a corpus JSONL path, or None for the embedded corpus). Gold with a
    sentence index is sentence-level; without one, the whole document is the unit."""
    path = Path(path)
    if corpus is None:
        corpus = load_embedded_corpus()
    elif not isinstance(corpus, Corpus):
        corpus = load_corpus(corpus)
    questions: list[EvalQuestion] = []
    seen: dict[str, int] = {}
    for lineno, row in _read_jsonl(path):
        where = f"{path}:{lineno}"
        try:
            q = _UserQuestion.model_validate(row)
        except ValidationError as exc:
            raise DatasetError(f"{where}: {validation_message(exc, _ROW_WORDING)}") from None
        if q.id in seen:
            raise DatasetError(f"{where}: duplicate question id {q.id!r} (first on line {seen[q.id]})")
        seen[q.id] = lineno
        units: set[Unit] = set()
        for g in q.gold:
            doc = corpus.get(g.doc_id)
            if doc is None:
                raise DatasetError(f"{where}: gold doc_id {g.doc_id!r} is not in the corpus ({corpus.source})")
            if g.sentence is not None and g.sentence >= len(doc.sentence_list()):
                raise DatasetError(f"{where}: gold sentence {g.sentence} of {g.doc_id!r} does not exist "
                                   f"(it has {len(doc.sentence_list())} sentences)")
            units.add((g.doc_id, -1 if g.sentence is None else g.sentence))
        questions.append(EvalQuestion(id=q.id, question=q.question, answer=q.answer, type=q.type, gold=sorted(units)))
    if not questions:
        raise DatasetError(f"{path}: no questions")
    gold = [u for q in questions for u in q.gold]
    level: Level = "sentence" if gold and all(i >= 0 for _, i in gold) else "paragraph"
    return EvalSet(name=path.stem, level=level, questions=questions, corpus=corpus)


def load_eval_set(name: str, data_dir: Path | None = None, corpus: str | Path | None = None) -> EvalSet:
    """A built-in data set by name, or a JSONL file by path: a SciFact- or WiCE-format claim
    file (`load_claim_file`), else a user question file (`load_user_set`).

    `data_dir` (`--data`): where the data set's files are (`DIR/multihop/`, `DIR/scifact/`,
    `DIR/wice/`); None: the shipped copy for the multihop sets, `SHARED_DATA_DIR` (when it
    holds them) for SciFact and WiCE."""
    if data_dir is not None:
        data_dir = Path(data_dir)
        if not data_dir.is_dir():
            raise DatasetError(f"--data {data_dir}: not a directory (it should hold multihop/, scifact/ or wice/)")
    if name in MULTIHOP:
        loader = {"hotpotqa": load_hotpotqa, "musique": load_musique, "2wiki": load_2wiki}[name]
        return loader(data_dir if data_dir is not None else BUILTIN_DATA_DIR)
    if name in NOT_SHIPPED:
        return (load_scifact if name == "scifact" else load_wice)(data_dir)
    if Path(name).suffix in (".jsonl", ".json") or Path(name).is_file():
        if not Path(name).is_file():
            raise DatasetError(f"{name}: question file not found")
        if claim_file_format(Path(name)) is not None:
            return load_claim_file(Path(name), corpus)
        return load_user_set(name, corpus)
    raise DatasetError(f"unknown dataset {name!r}; valid: {', '.join(DATASETS)} or a path to a JSONL question file")


__all__ = ["EvalQuestion", "EvalSet", "DatasetError", "DATASETS", "BUILTIN_DATA_DIR", "DEFAULT_DATA_DIR",
           "SHARED_DATA_DIR", "claims_data_dir", "load_eval_set", "load_hotpotqa", "load_musique",
           "hotpotqa_questions", "musique_questions", "load_2wiki", "load_2wiki_corpus", "load_scifact",
           "load_scifact_corpus", "load_wice", "load_user_set", "wiki2_type", "SCIFACT_NEI", "CorpusError",
           "ClaimFormat", "claim_file_format", "load_claim_file", "scifact_questions", "wice_claims"]
