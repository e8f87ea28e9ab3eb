"""Which roles a model plays in a run: building the planner, verifier and claim stage from
their registry names, for a new run (a live or fake client) or a replay (the run's recorded
replies).

Names: planner `rule` | `naive` | `llm`; verifier `lexical` (or any registered one) |
`judge` | `trained:ENDPOINT` (a served verdict model with its own endpoint, YAML or
`fake:NAME`; recorded, and replayed, as `trained`); writer `rule` | `llm`; critic `none` | `llm`; screen `rules` | `llm` (the injection
filter's optional model check after its rules). Model-backed parts carry `ref_args`
(the client spec, model name and sampling) that the run header records, so a replay can
rebuild them around a `RecordedChatClient` that serves the same replies.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from citeloop.runtime.claims import CheckedClaim, write_and_verify
from citeloop.runtime.config import ResearchConfig
from citeloop.runtime.ledger import Ledger
from citeloop.runtime.llm.client import ChatClient, ModelEndpoint, Sampling
from citeloop.runtime.llm.critic import LLMCritic
from citeloop.runtime.llm import make_client, model_spec
from citeloop.runtime.llm.judge_verifier import JudgeVerifier
from citeloop.runtime.llm.planner import LLMPlanner
from citeloop.runtime.llm.prompts import PromptLibrary
from citeloop.runtime.llm.recorded import RecordedChatClient
from citeloop.runtime.llm.screen import DEFAULT_MIN_CONFIDENCE, LLMInjectionScreen
from citeloop.runtime.llm.trained_verifier import TrainedVerifier
from citeloop.runtime.llm.writer import LLMClaimWriter
from citeloop.runtime.planner import PLANNERS, Planner, resolve_planner
from citeloop.runtime.recorder import Recorder
from citeloop.runtime.verifier import Verifier, VerifierConfig, resolve_verifier
from citeloop.trajectories.events import BaseEvent
from citeloop.trajectories.header import ComponentRef
from citeloop.trajectories.models import EvidenceCard, Plan

WRITERS = ("rule", "llm")
MODEL_PART_VERSIONS = {("planner", "llm"): LLMPlanner.version, ("verifier", "judge"): JudgeVerifier.version,
                       ("verifier", "trained"): TrainedVerifier.version}
"""Versions of the model-backed planner and verifier, for replay's header check."""
CRITICS = ("none", "llm")
SCREENS = ("rules", "llm")


class LLMPartsError(ValueError):
    """An unknown part name, or a model-backed part without a model client."""


def client_args(spec: str | ModelEndpoint | dict[str, Any], client: ChatClient) -> dict[str, Any]:
    """What the header records about the client: enough to rebuild or replay it."""
    if isinstance(spec, ModelEndpoint):
        spec = spec.model_dump(mode="json")
    return {"client": spec, "model": client.model, "sampling": client.sampling.model_dump(mode="json")}


def recorded_client(args: dict[str, Any], events: Sequence[BaseEvent]) -> RecordedChatClient:
    """The client a replay uses: the run's recorded replies, under the recorded model and sampling."""
    if "model" not in args or "sampling" not in args:
        raise LLMPartsError(f"header args {sorted(args)} lack `model`/`sampling`; cannot replay the model calls")
    return RecordedChatClient(events, args["model"], Sampling.model_validate(args["sampling"]))


class LLMClaimStage:
    """The claim stage with model roles: the LLM writer (or the rule one), then the critic."""

    def __init__(self, writer: LLMClaimWriter | None, critic: LLMCritic | None) -> None:
        self.writer = writer
        self.critic = critic

    def __call__(self, plan: Plan, ledger: Ledger, verifier: Verifier, rec: Recorder,
                 evidence_for: Callable[[str], list[EvidenceCard]]) -> list[CheckedClaim]:
        if self.writer is not None:
            kept = self.writer.write_and_verify(plan, ledger, verifier, rec, evidence_for)
        else:
            kept = write_and_verify(plan, ledger, verifier, rec, evidence_for)
        if self.critic is not None:
            kept = self.critic.review(kept, ledger, rec)
        return kept


@dataclass
class RunParts:
    planner: Planner
    verifier: Verifier
    claim_stage: LLMClaimStage | None = None
    """None: the engine's default, rule-based claim stage."""
    screen: LLMInjectionScreen | None = None
    """The injection filter's model check; None: rules only."""
    roles: dict[str, ComponentRef] = field(default_factory=dict)
    """Writer, critic and screen refs, recorded with the header's policies (only when model-backed)."""
    prompt_versions: dict[str, str] = field(default_factory=dict)


TRAINED = "trained"
"""`trained:ENDPOINT` brings its own model; plain `trained` (a replay) answers from the run's client."""


def uses_model(planner: str, verifier: str, writer: str, critic: str, screen: str = "rules") -> bool:
    """Does a part need the run's model client (`--llm`)?"""
    return (planner == "llm" or verifier in ("judge", TRAINED) or writer == "llm" or critic == "llm"
            or screen == "llm")


def trained_verifier(spec: str, config: VerifierConfig | None = None,
                     library: PromptLibrary | None = None) -> TrainedVerifier:
    """The `trained` verifier of a `trained:ENDPOINT` spec, with its own client; its
    `ref_args` record that client as any model part's do."""
    endpoint = spec.removeprefix(f"{TRAINED}:")
    if not endpoint or endpoint == spec:
        raise LLMPartsError(f"{spec!r}: give the verdict model's endpoint, trained:ENDPOINT.yaml or trained:fake:NAME")
    try:
        target = model_spec(endpoint)
        client = make_client(target)
    except (ValueError, OSError) as exc:
        raise LLMPartsError(f"{spec}: {exc}") from exc
    verifier = TrainedVerifier(client, config, library)
    verifier.ref_args = client_args(target, client)
    return verifier


def make_verifier(spec: str, config: VerifierConfig | None = None) -> Verifier:
    """A verifier for work outside a research run (`eval --task verify`, rescoring, benchmarks):
    `trained:ENDPOINT`, or a name or `module:attr` for `resolve_verifier`. The `judge` needs a
    run to record its calls into, so it is refused here."""
    if spec.startswith(f"{TRAINED}:"):
        return trained_verifier(spec, config)
    if spec in ("judge", TRAINED):
        raise LLMPartsError(f"the {spec} verifier needs a model: use trained:ENDPOINT here "
                            f"(the judge runs inside research runs, with --llm)")
    return resolve_verifier(spec, config)


def build_parts(config: ResearchConfig, *, planner: str = "rule", verifier: str = "lexical", writer: str = "rule",
                critic: str = "none", screen: str = "rules", client: ChatClient | None = None,
                args: dict[str, Any] | None = None, library: PromptLibrary | None = None,
                screen_min_confidence: float | None = DEFAULT_MIN_CONFIDENCE) -> RunParts:
    """The run's planner, verifier and claim stage. `args` (see `client_args`) go into the header;
    so does `screen_min_confidence` (the model check's threshold, `LLMInjectionScreen`; None:
    its answer alone decides), in the screen role's args, so a replay uses the same one."""
    if planner not in {*PLANNERS, "llm"}:
        raise LLMPartsError(f"unknown planner {planner!r}; valid: {', '.join(sorted({*PLANNERS, 'llm'}))}")
    if writer not in WRITERS:
        raise LLMPartsError(f"unknown writer {writer!r}; valid: {', '.join(WRITERS)}")
    if critic not in CRITICS:
        raise LLMPartsError(f"unknown critic {critic!r}; valid: {', '.join(CRITICS)}")
    if screen not in SCREENS:
        raise LLMPartsError(f"unknown screen {screen!r}; valid: {', '.join(SCREENS)}")
    if screen_min_confidence is not None and not 0.0 <= screen_min_confidence <= 1.0:
        raise LLMPartsError(f"the screen's min confidence must be within [0, 1]; got {screen_min_confidence}")
    if uses_model(planner, verifier, writer, critic, screen) and client is None:
        raise LLMPartsError("a model-backed part (planner llm, verifier judge, writer llm, critic llm or screen llm) "
                            "needs a model client: pass --llm fake:NAME or --llm ENDPOINT.yaml (or, for the "
                            "verdict model, --verifier trained:ENDPOINT)")
    library = library or PromptLibrary()
    args = args or {}
    versions: dict[str, str] = {}

    def versioned(part: Any) -> Any:
        for pid in part.prompt_ids:
            versions[pid] = str(library.get(pid).version)
        part.ref_args = dict(args)
        return part

    the_planner: Planner = (versioned(LLMPlanner(client, config.planner, library)) if planner == "llm"  # type: ignore[arg-type]
                            else resolve_planner(planner, config.planner))
    if verifier == "judge":
        the_verifier: Verifier = versioned(JudgeVerifier(client, config.verifier, library))  # type: ignore[arg-type]
    elif verifier == TRAINED:
        the_verifier = versioned(TrainedVerifier(client, config.verifier, library))  # type: ignore[arg-type]
    elif verifier.startswith(f"{TRAINED}:"):
        own = trained_verifier(verifier, config.verifier, library)
        for pid in own.prompt_ids:
            versions[pid] = str(library.get(pid).version)
        the_verifier = own
    else:
        the_verifier = resolve_verifier(verifier, config.verifier)
    llm_writer = versioned(LLMClaimWriter(client, library)) if writer == "llm" else None  # type: ignore[arg-type]
    llm_critic = versioned(LLMCritic(client, config.verifier, library)) if critic == "llm" else None  # type: ignore[arg-type]
    llm_screen = (versioned(LLMInjectionScreen(client, library, screen_min_confidence))  # type: ignore[arg-type]
                  if screen == "llm" else None)
    roles = {}
    if llm_writer is not None:
        roles["writer"] = ComponentRef(name=llm_writer.name, version=llm_writer.version, args=dict(args))
    if llm_critic is not None:
        roles["critic"] = ComponentRef(name=llm_critic.name, version=llm_critic.version, args=dict(args))
    stage = LLMClaimStage(llm_writer, llm_critic) if llm_writer or llm_critic else None
    if llm_screen is not None:
        # The threshold is recorded when it is not the default (so runs made before it could
        # be set keep their header, and their run id).
        threshold = {} if screen_min_confidence == DEFAULT_MIN_CONFIDENCE else {"min_confidence": screen_min_confidence}
        roles["screen"] = ComponentRef(name=llm_screen.name, version=llm_screen.version, args={**args, **threshold})
    return RunParts(the_planner, the_verifier, stage, llm_screen, roles, dict(sorted(versions.items())))


def parts_from_header(config: ResearchConfig, planner: ComponentRef, verifier_name: str, verifier: ComponentRef,
                      roles: dict[str, ComponentRef], events: Sequence[BaseEvent]) -> RunParts:
    """The parts a recorded run used, model-backed ones answering from its recorded replies."""
    writer = roles.get("writer")
    critic = roles.get("critic")
    screen = roles.get("screen")
    names = {"planner": planner.name, "verifier": verifier_name, "writer": writer.name if writer else "rule",
             "critic": critic.name if critic else "none", "screen": screen.name if screen else "rules"}
    model_refs = [ref for ref in (planner, verifier, writer, critic, screen) if ref is not None and "model" in ref.args]
    client = recorded_client(model_refs[0].args, events) if model_refs else None
    # A screen recorded without a threshold used the default.
    threshold = screen.args.get("min_confidence", DEFAULT_MIN_CONFIDENCE) if screen else DEFAULT_MIN_CONFIDENCE
    recorded_args = {k: v for k, v in model_refs[0].args.items() if k != "min_confidence"} if model_refs else None
    return build_parts(config, client=client, args=recorded_args, screen_min_confidence=threshold, **names)

