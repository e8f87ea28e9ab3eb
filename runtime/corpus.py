"""Local document corpora: the `Document` model, JSONL loading with precise errors, and
the embedded multi-hop corpus that ships with citeloop.

A corpus is identified by `fingerprint` (content digest of its documents in file order);
run headers record it so a replay can tell whether it sees the same corpus.
"""

from __future__ import annotations

import io
import json
import re
import shutil
import sys
import urllib.parse
from collections.abc import Iterable, Iterator, Sequence
from importlib import resources
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from citeloop.runtime.sentences import split_sentences
from citeloop.trajectories.errors import ErrorWording, validation_message
from citeloop.trajectories.header import content_digest
from citeloop.trajectories.jsonl import read_json_lines

EMBEDDED_SOURCE = "embedded"
EMBEDDED_RESOURCE = "data/corpus/multihop.jsonl"
_ISO_DATE = re.compile(r"^\d{4}(-\d{2}(-\d{2}([T ][0-9:.+\-Z]+)?)?)?$")


class Document(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    """Stable document id, unique in its corpus."""
    title: str
    text: str
    """Full text. Never empty."""
    url: str | None = None
    publisher: str | None = None
    published: str | None = None
    """ISO date (YYYY, YYYY-MM or YYYY-MM-DD, optionally with a time)."""
    source_type: str | None = None
    """Evidence type of the source, e.g. `reference_work` (see `EvidenceType`)."""
    sentences: list[str] | None = None
    """Pre-split sentences. When given they define sentence ids, so gold sentence
    indices of a data set stay exact; when absent the text is split by rule."""

    @field_validator("id", "text")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be empty")
        return value

    @field_validator("published")
    @classmethod
    def _iso_date(cls, value: str | None) -> str | None:
        if value is not None and not _ISO_DATE.match(value):
            raise ValueError(f"not an ISO date: {value!r}")
        return value

    @field_validator("sentences")
    @classmethod
    def _sentences_not_blank(cls, value: list[str] | None) -> list[str] | None:
        if value is None:
            return value
        if not value:
            raise ValueError("must not be an empty list (omit it to split the text)")
        for i, sentence in enumerate(value):
            if not sentence.strip():
                raise ValueError(f"sentence {i} is empty")
        return value

    def sentence_list(self) -> list[str]:
        """The document's sentences: the given split, or the rule-based one."""
        if self.sentences is not None:
            return list(self.sentences)
        return split_sentences(self.text)


class CorpusError(ValueError):
    """A corpus file cannot be loaded; the message names the file, line and problem."""


class Corpus:
    """Documents in file order, with lookup by id."""

    def __init__(self, documents: Sequence[Document], source: str) -> None:
        self.documents: list[Document] = list(documents)
        self.source = source
        self.by_id: dict[str, Document] = {}
        for doc in self.documents:
            if doc.id in self.by_id:
                raise CorpusError(f"{source}: duplicate document id {doc.id!r}")
            self.by_id[doc.id] = doc
        if not self.documents:
            raise CorpusError(f"{source}: corpus is empty")
        self._fingerprint: str | None = None
        self._cutoff: tuple[str | None] | None = None

    def __len__(self) -> int:
        return len(self.documents)

    def __iter__(self) -> Iterator[Document]:
        return iter(self.documents)

    def get(self, doc_id: str) -> Document | None:
        return self.by_id.get(doc_id)

    @property
    def fingerprint(self) -> str:
        # exclude_none: adding an optional field to Document must not change the
        # fingerprint of corpora that do not use it.
        if self._fingerprint is None:
            self._fingerprint = content_digest(
                [d.model_dump(mode="json", exclude_none=True) for d in self.documents]
            )
        return self._fingerprint

    @property
    def cutoff(self) -> str | None:
        """Latest publication date, or None when no document is dated."""
        if self._cutoff is None:  # every run's header asks; the documents do not change
            dates = [d.published for d in self.documents if d.published]
            self._cutoff = (max(dates) if dates else None,)
        return self._cutoff[0]


# --------------------------------------------------------------------------- loading


_WORDING = ErrorWording(other="wrong type for field '{loc}': {msg}", unknown="unknown field '{loc}'",
                        missing="missing field '{loc}'", value="field '{loc}': {msg}", whole="document")


def parse_documents(lines: Iterable[str], source: str) -> list[Document]:
    """Parse JSONL lines into documents; blank lines are skipped."""
    documents: list[Document] = []
    seen: dict[str, int] = {}
    rows = read_json_lines(lines, source, CorpusError, invalid="invalid JSON ({msg} at column {col})",
                           not_object="expected a JSON object, got {type}")
    for lineno, raw in rows:
        where = f"{source}:{lineno}"
        try:
            doc = Document.model_validate(raw)
        except ValidationError as exc:
            raise CorpusError(f"{where}: {validation_message(exc, _WORDING)}") from None
        if doc.id in seen:
            raise CorpusError(
                f"{where}: duplicate document id {doc.id!r} (first seen on line {seen[doc.id]})"
            )
        seen[doc.id] = lineno
        documents.append(doc)
    if not documents:
        raise CorpusError(f"{source}: corpus is empty")
    return documents


def _open_text(path: Path) -> io.TextIOBase:
    if path.name.endswith(".zst"):
        import zstandard  # optional: only needed for compressed corpora

        raw = path.open("rb")
        reader = zstandard.ZstdDecompressor().stream_reader(raw, closefd=True)
        return io.TextIOWrapper(reader, encoding="utf-8")
    return path.open(encoding="utf-8")


def load_corpus(path: str | Path) -> Corpus:
    """Load a `.jsonl` (or `.jsonl.zst`) corpus, one Document per line."""
    path = Path(path)
    if not path.is_file():
        raise CorpusError(f"{path}: {'is a directory, not a corpus file' if path.is_dir() else 'corpus file not found'}")
    try:
        with _open_text(path) as handle:
            documents = parse_documents(handle, str(path))
    except UnicodeDecodeError as exc:
        raise CorpusError(f"{path}: not UTF-8 text ({exc.reason})") from None
    return Corpus(documents, source=str(path))


def load_embedded_corpus() -> Corpus:
    """The multi-hop Wikipedia corpus shipped inside the package (see its README)."""
    resource = resources.files("citeloop.runtime").joinpath(EMBEDDED_RESOURCE)
    text = resource.read_text(encoding="utf-8")
    return Corpus(parse_documents(text.splitlines(), EMBEDDED_SOURCE), source=EMBEDDED_SOURCE)


# --------------------------------------------------------------------------- embedded corpus


def _wikipedia_url(title: str) -> str:
    return "https://en.wikipedia.org/wiki/" + urllib.parse.quote(
        title.replace(" ", "_"), safe="_(),'"
    )


def _wikipedia_doc(doc_id: str, title: str, text: str, sentences: list[str] | None) -> Document:
    return Document(
        id=doc_id,
        title=title,
        text=text,
        url=_wikipedia_url(title),
        publisher="Wikipedia",
        source_type="reference_work",
        sentences=sentences,
    )


def build_multihop_corpus(shared_data_dir: str | Path) -> list[Document]:
    """Documents of the HotpotQA and MuSiQue samples, HotpotQA first, in file order.

    Duplicates across and within the two sets are kept on purpose: the runtime's
    near-duplicate detection has to see them.
    """
    base = Path(shared_data_dir) / "multihop"
    hotpot: dict[str, list[str]] = json.loads(
        (base / "hotpotqa_100_corpus.json").read_text(encoding="utf-8")
    )
    musique: list[dict[str, str]] = json.loads(
        (base / "musique_100_corpus.json").read_text(encoding="utf-8")
    )
    documents: list[Document] = []
    for i, (title, raw_sentences) in enumerate(hotpot.items()):
        sentences = [s.strip() for s in raw_sentences]
        # Two paragraphs end in a blank sentence; dropping only trailing blanks keeps
        # every gold sentence index of hotpotqa_100.json valid.
        while sentences and not sentences[-1]:
            sentences.pop()
        documents.append(
            _wikipedia_doc(f"hotpotqa-{i:04d}", title, " ".join(sentences), sentences)
        )
    for i, passage in enumerate(musique):
        documents.append(
            _wikipedia_doc(f"musique-{i:04d}", passage["title"], passage["text"].strip(), None)
        )
    return documents


_README = """\
# Embedded corpus: multihop.jsonl

{total} Wikipedia paragraphs, the default corpus of `citeloop research` and the tests.

- `hotpotqa-0000` .. `hotpotqa-{h_last:04d}` ({hotpot} documents): the paragraphs of
  `hotpotqa_100_corpus.json`, in that file's order, with its sentence split kept in
  `sentences` so HotpotQA's sentence-level gold indices stay exact.
- `musique-0000` .. `musique-{m_last:04d}` ({musique} documents): the passages of
  `musique_100_corpus.json`, in list order, split into sentences by rule at load time.

Duplicates are kept on purpose ({dup_titles} titles occur more than once).

## Where it comes from
Samples of HotpotQA (CC BY-SA 4.0) and MuSiQue (CC BY 4.0) as redistributed by the
HippoRAG repository (OSU-NLP-Group/HippoRAG, MIT license; LICENSE.HippoRAG.txt beside
this file). The paragraph text is from Wikipedia, licensed CC BY-SA; each document's
`url` points at its article.

## How it was built
`python -m citeloop.runtime.corpus build-embedded <shared data dir>`, which runs
`citeloop.runtime.corpus.build_multihop_corpus` and writes this directory. Each line is one
`citeloop.runtime.corpus.Document` (publisher "Wikipedia", source_type "reference_work", undated).
"""


def write_embedded_corpus(documents: list[Document], shared_data_dir: str | Path,
                          out_dir: Path | None = None) -> Path:
    """Write the embedded corpus, its upstream license and a README into `out_dir`."""
    out_dir = out_dir or Path(__file__).parent / "data" / "corpus"
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / "multihop.jsonl"
    with target.open("w", encoding="utf-8", newline="\n") as handle:
        for doc in documents:
            handle.write(json.dumps(doc.model_dump(exclude_none=True), ensure_ascii=False) + "\n")
    shutil.copyfile(
        Path(shared_data_dir) / "multihop" / "LICENSE.HippoRAG.txt", out_dir / "LICENSE.HippoRAG.txt"
    )
    hotpot = sum(d.id.startswith("hotpotqa-") for d in documents)
    musique = len(documents) - hotpot
    titles: dict[str, int] = {}
    for doc in documents:
        titles[doc.title] = titles.get(doc.title, 0) + 1
    (out_dir / "README.md").write_text(
        _README.format(
            total=len(documents), hotpot=hotpot, musique=musique, h_last=hotpot - 1,
            m_last=musique - 1, dup_titles=sum(n > 1 for n in titles.values()),
        ),
        encoding="utf-8",
    )
    return target


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2 or args[0] != "build-embedded":
        print("usage: python -m citeloop.runtime.corpus build-embedded SHARED_DATA_DIR", file=sys.stderr)
        return 2
    documents = build_multihop_corpus(args[1])
    target = write_embedded_corpus(documents, args[1])
    corpus = load_corpus(target)
    print(f"wrote {len(corpus)} documents to {target} (fingerprint {corpus.fingerprint[:16]})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
