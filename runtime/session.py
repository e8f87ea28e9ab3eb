"""Assembling one research run: corpus and index, tools, policies, header, sink, engine.

`ResearchKit` holds what is expensive and shared between runs (the corpus, its BM25 index and
its per-document text analysis); `kit_for` keeps one per corpus per process (a worker of a
batch loads it once, not per run); `run_research` builds everything else for one question and
runs it. The run id is a content hash of what defines the run (question, seed, config, corpus,
components), so the same inputs write the same file.
"""

from __future__ import annotations

import functools
import hashlib
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

import citeloop.trajectories as trajectories
from citeloop.runtime.config import ResearchConfig
from citeloop.runtime.corpus import Corpus, load_corpus, load_embedded_corpus
from citeloop.runtime.doc_features import DocFeatures
from citeloop.runtime.engine import ResearchEngine, RunResult
from citeloop.runtime.index import BM25Index
from citeloop.runtime.llm import ChatClient, ModelEndpoint, ResponseCache, make_client
from citeloop.runtime.llm.parts import build_parts, client_args
from citeloop.runtime.llm.prompts import PROMPTS_DIR
from citeloop.runtime.llm.screen import DEFAULT_MIN_CONFIDENCE
from citeloop.runtime.planner import Planner
from citeloop.runtime.policies import resolve_policies
from citeloop.runtime.recorder import Recorder
from citeloop.runtime.tools import CorpusReadTool, CorpusSearchTool, ReadTool, SearchTool
from citeloop.runtime.verifier import Verifier
from citeloop.trajectories.engines import once_per_process, remember
from citeloop.trajectories.header import ComponentRef, RunHeader, RunSpec, content_digest
from citeloop.trajectories.runfile import EventSink, FileSink

PACKAGES = ("citeloop", "pydantic", "bm25s", "datasketch", "PyStemmer")


CODE_DIRS = (Path(__file__).resolve().parent, Path(trajectories.__file__).resolve().parent, PROMPTS_DIR)
"""What a run executes: the runtime and trajectory packages, and the prompt files."""


@functools.cache
def code_digest() -> str:
    """12 hex digits over the source of `CODE_DIRS` (`*.py`, `*.yaml`; paths and bytes), so a
    replay can tell that the code changed even when the package version did not."""
    h = hashlib.sha256()
    for root in CODE_DIRS:
        for path in sorted(p for p in root.rglob("*") if p.suffix in (".py", ".yaml") and p.is_file()):
            h.update(f"{root.name}/{path.relative_to(root).as_posix()}\0".encode())
            h.update(path.read_bytes())
    return h.hexdigest()[:12]


@functools.cache
def _installed_versions(names: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    versions = []
    for name in names:
        try:
            version = metadata.version(name)
        except metadata.PackageNotFoundError:
            version = "not-installed"
        versions.append((name, f"{version}+src.{code_digest()}" if name == "citeloop" else version))
    return tuple(versions)


def package_versions(names: Sequence[str] = PACKAGES) -> dict[str, str]:
    """Installed versions of `names` (default: the packages a run depends on), "not-installed" for
    a missing one; citeloop's carries the source digest. Read once per process and list: branching
    asks for every rollout."""
    return dict(_installed_versions(tuple(names)))


@dataclass
class ResearchKit:
    corpus: Corpus
    index: BM25Index
    index_seconds: float
    features: DocFeatures | None = field(default=None, repr=False)
    """The corpus's per-document text analysis (`runtime.doc_features`), stored beside the
    index; by default the one of the index's cache entry."""

    def __post_init__(self) -> None:
        if self.features is None:
            self.features = DocFeatures(self.corpus, self.index.cache_path)

    @classmethod
    def load(cls, corpus_path: str | Path | None = None, cache_dir: Path | None = None) -> "ResearchKit":
        corpus = load_embedded_corpus() if corpus_path is None else load_corpus(corpus_path)
        t0 = time.perf_counter()
        index = BM25Index.build(corpus, cache_dir)
        return cls(corpus=corpus, index=index, index_seconds=time.perf_counter() - t0)


KIT_KIND = "research-kit"
"""The `once_per_process` kind of research kits: `engines.builds(KIT_KIND)` counts the loads."""


def _kit_key(corpus: str | Path | Corpus | None) -> tuple[str, str | None]:
    if isinstance(corpus, Corpus):
        return KIT_KIND, f"fingerprint:{corpus.fingerprint}"
    return KIT_KIND, None if corpus is None else str(corpus)


def kit_for(corpus: str | Path | Corpus | None) -> ResearchKit:
    """The research kit of `corpus`, loaded once per process: a corpus file, None (the embedded
    corpus), or a loaded `Corpus` (its index built, or read from the index cache, once)."""

    def load() -> ResearchKit:
        if not isinstance(corpus, Corpus):
            return ResearchKit.load(None if corpus is None else str(corpus))
        t0 = time.perf_counter()
        return ResearchKit(corpus, BM25Index.build(corpus), time.perf_counter() - t0)

    return once_per_process(_kit_key(corpus), load)


def share_kit(corpus: str | Path | Corpus | None, kit: ResearchKit) -> None:
    """Let `kit_for(corpus)` in this process (and in workers forked from it) return `kit`."""
    remember(_kit_key(corpus), kit)


def run_id_for(spec: RunSpec) -> str:
    # The cut-off is derived from the corpus, whose fingerprint is already hashed; leaving it
    # out keeps run ids stable across the v1 -> v2 header change.
    return "run-" + content_digest(spec.model_dump(mode="json", exclude={"packages", "corpus_cutoff"}))[:16]


def make_spec(
    question: str,
    seed: int,
    config: ResearchConfig,
    kit: ResearchKit,
    policy_spec: str,
    planner: Planner,
    verifier: Verifier,
    search_tool: SearchTool,
    read_tool: ReadTool,
    roles: dict[str, ComponentRef] | None = None,
    prompt_versions: dict[str, str] | None = None,
) -> RunSpec:
    """The run's spec. Model-backed parts add their client (`ref_args`), their roles (writer,
    critic) beside the policy spec, and the versions of the prompts they use."""
    return RunSpec(
        question=question,
        seed=seed,
        config=config.model_dump(mode="json"),
        config_digest=config.digest(),
        planner=ComponentRef(name=planner.name, version=planner.version, args=getattr(planner, "ref_args", {})),
        policies={"spec": ComponentRef(name=policy_spec, version="1"), **(roles or {})},
        tools={
            "search": ComponentRef(name=search_tool.name, version=search_tool.version, args={"k": config.search.k}),
            "read": ComponentRef(name=read_tool.name, version=read_tool.version),
        },
        verifier=ComponentRef(name=verifier.name, version=verifier.version, args=getattr(verifier, "ref_args", {})),
        prompt_versions=prompt_versions or {},
        corpus_fingerprint=kit.corpus.fingerprint,
        corpus_source=kit.corpus.source,
        corpus_cutoff=kit.corpus.cutoff,
        packages=package_versions(),
    )


def run_research(
    question: str,
    kit: ResearchKit,
    config: ResearchConfig | None = None,
    policy_spec: str = "heuristic",
    seed: int = 0,
    out_dir: Path | None = Path("runs"),
    sink: EventSink | None = None,
    compress: bool = False,
    search_tool: SearchTool | None = None,
    read_tool: ReadTool | None = None,
    planner: Planner | str = "rule",
    verifier_name: str = "lexical",
    writer: str = "rule",
    critic: str = "none",
    screen: str = "rules",
    llm: str | ModelEndpoint | ChatClient | None = None,
    screen_min_confidence: float | None = DEFAULT_MIN_CONFIDENCE,
) -> tuple[RunResult, Path | None]:
    """Plan (errors raise before anything is written), then run with full capture.

    `planner="llm"`, `verifier_name="judge"`, `writer="llm"`, `critic="llm"` and
    `screen="llm"` (the injection filter's model check) put a model behind those roles;
    `llm` is the model: `fake:NAME`, an endpoint, or a ready client. `screen_min_confidence`:
    the model check rejects a page only when it answers `instruction` with at least this
    probability (None: the answer alone decides).
    """
    config = config or ResearchConfig()
    client, args = _client(llm)
    parts = build_parts(config, planner=planner if isinstance(planner, str) else "rule", verifier=verifier_name,
                        writer=writer, critic=critic, screen=screen, client=client, args=args,
                        screen_min_confidence=screen_min_confidence)
    if not isinstance(planner, str):
        parts.planner = planner
    planner = parts.planner
    plan = planner.plan(question)
    verifier = parts.verifier
    search_tool = search_tool or CorpusSearchTool(kit.corpus, kit.index, kit.features)
    read_tool = read_tool or CorpusReadTool(kit.corpus, kit.features)
    policies = resolve_policies(policy_spec, config, seed)
    spec = make_spec(plan.question, seed, config, kit, policy_spec, planner, verifier, search_tool, read_tool,
                     parts.roles, parts.prompt_versions)
    header = RunHeader(run_id=run_id_for(spec), spec=spec)
    path = None
    if sink is None:
        if out_dir is None:
            raise ValueError("give out_dir or a sink")
        path = Path(out_dir) / f"{header.run_id}.jsonl{'.zst' if compress else ''}"
        sink = FileSink(path)
    sink.write_header(header)
    rec = Recorder(header, sink)
    engine = ResearchEngine(config, planner, policies, verifier, search_tool, read_tool, kit.corpus.cutoff,
                            claim_stage=parts.claim_stage, screen=parts.screen)
    result = engine.run(header, plan, rec)
    return result, path


def _client(llm: str | ModelEndpoint | ChatClient | None) -> tuple[ChatClient | None, dict | None]:
    """The model client and what the header records about it. A served endpoint gets the
    on-disk response cache, so re-runs cost nothing; a fake needs none."""
    if llm is None:
        return None, None
    if isinstance(llm, (str, ModelEndpoint, dict)):
        cache = None if isinstance(llm, str) else ResponseCache.from_env()
        client = make_client(llm, cache=cache)
        return client, client_args(llm, client)
    name = getattr(llm, "name", None)
    spec = f"fake:{name}" if getattr(llm, "model", "").startswith("fake:") and name else llm.model
    return llm, client_args(spec, llm)
