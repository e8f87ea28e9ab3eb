"""Replay with one part swapped: new tools (corpus or retriever settings), a new policy, or
a new verifier; the result is a new run plus its diff against the original.

Policy and verifier swaps keep the original tools: calls the original made are answered
from its record, new ones go live against the corpus the header names (which must have the
recorded fingerprint). Since the corpus tools are pure, a policy swap writes exactly what a
fresh run with that policy would. A tools swap answers every call live from the new tools.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from citeloop.runtime.policies.scripted import ScriptDivergence
from citeloop.runtime.registry import read_yaml_mapping
from citeloop.runtime.rebuild import ReplayError, build_components, config_from_spec
from citeloop.runtime.replay_runs import LiveCorpus, ReplayRun, execute, recorded_tools, write_run
from citeloop.runtime.session import ResearchKit, package_versions, run_id_for
from citeloop.runtime.tools import CorpusReadTool, CorpusSearchTool
from citeloop.trajectories.diff import diff_runs
from citeloop.trajectories.errors import ErrorWording, validation_message
from citeloop.trajectories.header import ComponentRef, RunHeader
from citeloop.trajectories.runfile import RunFile

SWAP_KINDS = ("tools", "policy", "verifier")
TOOL_SWAP_KEYS = ("corpus", "search")
_SETTING = ErrorWording(other="{msg}")
"""A bad search setting is named by its message alone."""


def parse_swap(text: str) -> tuple[str, str]:
    kind, sep, value = text.partition("=")
    kind, value = kind.strip(), value.strip()
    if not sep or kind not in SWAP_KINDS or not value:
        raise ReplayError(f"bad --swap {text!r}: expected tools=CONFIG, policy=NAME or verifier=NAME")
    return kind, value


def load_tool_swap(path: Path) -> tuple[Path | None, dict[str, Any]]:
    """(corpus path or None, search settings) from a tools YAML; relative paths are relative to it."""
    if not path.is_file():
        raise ReplayError(f"{path}: tools config not found")
    data = read_yaml_mapping(path, ReplayError)
    if not isinstance(data, dict) or set(data) - set(TOOL_SWAP_KEYS) or not data:
        raise ReplayError(f"{path}: a tools config is a mapping with keys {', '.join(TOOL_SWAP_KEYS)} "
                          f"(e.g. `corpus: my.jsonl` and/or `search: {{k: 5}}`)")
    corpus = data.get("corpus")
    search = data.get("search", {})
    if not isinstance(search, dict):
        raise ReplayError(f"{path}: `search` must be a mapping of search settings, e.g. {{k: 5}}")
    return (path.parent / corpus if corpus is not None else None), search


def swap_run(run: RunFile, swap: str, out_dir: Path | None = None, corpus: Path | None = None,
             kit: ResearchKit | None = None) -> ReplayRun:
    """Re-execute `run` with its tools, policy or verifier swapped; return the new run and the diff.

    `kit`, when it holds the run's corpus, serves live calls without loading it again."""
    kind, value = parse_swap(swap)
    spec = run.header.spec
    header_live = LiveCorpus(spec.corpus_source, spec.corpus_fingerprint, corpus, kit)
    update: dict[str, Any] = {"packages": package_versions()}
    if kind == "tools":
        corpus_path, search = load_tool_swap(Path(value))
        config = config_from_spec(spec)
        try:
            config = config.model_validate({**config.model_dump(mode="json"),
                                            "search": {**config.search.model_dump(mode="json"), **search}})
        except ValidationError as exc:
            problem = validation_message(exc, _SETTING, first_only=True)
            raise ReplayError(f"{value}: bad search settings: {problem}") from exc
        new_kit = (LiveCorpus(str(corpus_path), None) if corpus_path is not None else header_live).kit()
        comps = build_components(run.header, run.events, config=config)
        comps.cutoff = new_kit.corpus.cutoff
        # New tools answer everything: the record holds the old tools' answers.
        search_tool, read_tool = CorpusSearchTool(new_kit.corpus, new_kit.index), CorpusReadTool(new_kit.corpus)
        tools = dict(spec.tools)
        tools["search"] = tools["search"].model_copy(update={"args": {**tools["search"].args, "k": config.search.k}})
        update.update(config=config.model_dump(mode="json"), config_digest=config.digest(), tools=tools,
                      corpus_fingerprint=new_kit.corpus.fingerprint, corpus_source=new_kit.corpus.source,
                      corpus_cutoff=new_kit.corpus.cutoff)
    else:
        if kind == "policy":
            comps = build_components(run.header, run.events, policy_spec=value)
            update.update(policies={"spec": ComponentRef(name=value, version="1")}, branch=None)
        else:
            comps = build_components(run.header, run.events, verifier_name=value)
            # The name as given (registry name or module:attr), so the new header rebuilds it.
            update.update(verifier=ComponentRef(name=value, version=comps.verifier.version))
        search_tool, read_tool = recorded_tools(run.events, header_live)
    new_spec = spec.model_copy(update=update)
    header = RunHeader(run_id=run_id_for(new_spec), spec=new_spec)
    try:
        events = execute(header, comps, search_tool, read_tool)
    except ScriptDivergence as exc:
        raise ReplayError(f"the branch's recorded decisions do not fit the swapped {kind}: {exc}") from exc
    path = write_run(out_dir, header, events) if out_dir is not None else None
    if kind == "tools":
        served, live = 0, sum(1 for e in events if e.type in ("search_result", "document_read"))
    else:
        served, live = search_tool.served + read_tool.served, search_tool.live_calls + read_tool.live_calls
    return ReplayRun(header=header, events=events, path=path, diff=diff_runs(run.header, run.events, header, events),
                     served=served, live=live)
