"""The LLM policy: a served model takes the stop, angle, read, keep and follow decisions.

`LLMPolicy` renders each decision with the dataset templates (`citeloop.runtime.policies.prompts`),
so a fine-tuned model sees exactly the prompts it was trained on, and asks an
OpenAI-compatible server (vLLM) under a structured-output constraint that admits only valid
action lines: a choice for stop, angle and follow, a regex for read and keep (indices in range, no
more than the limit). Temperature 0, logprobs requested; every call is recorded as a
`model_call` event before the decision it served.

Whenever the model cannot decide (timeout, server error, refusal, an unparsable or invalid
reply) the heuristic policy decides instead, and the decision's reason starts with
`llm fallback (CAUSE, model_call SEQ)`, so fallbacks can be counted per run
(`llm_decision_counts`). A decision with a single valid action (no reads left, one
candidate) is taken without a call. Under a deferral margin (`&defer_margin=X`) the model
only overrules the heuristic, by that margin: another angle or follow option, or one more read.

The engine tells the policy about the run through `before_decision(recorder, subq, doc_id)`
(see `citeloop.runtime.policies.DecisionObserver`): the recorder's events give the question,
sub-question texts and documents read; the recorder records the model calls.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import openai

from citeloop.runtime.config import ResearchConfig
from citeloop.runtime.llm.client import ChatClient, Constraint, ModelEndpoint, ModelReply, OpenAIChatClient, Sampling
from citeloop.runtime.llm.prompts import RenderedPrompt
from citeloop.runtime.llm.record import record_reply
from citeloop.runtime.llm.recorded import RecordedChatClient
from citeloop.runtime.policies.actions import INDEX_KINDS, Action, format_action, parse_action, read_one_more
from citeloop.runtime.policies.base import AngleCandidate, Choice
from citeloop.runtime.policies.heuristic import HeuristicAngle, HeuristicFollow, HeuristicRead, HeuristicStop
from citeloop.runtime.policies.prompts import TEMPLATES, RunContext, render_prompt
from citeloop.trajectories.events import (
    AngleDecision,
    AngleState,
    BaseEvent,
    Event,
    FollowCandidate,
    FollowDecision,
    FollowState,
    KeepCandidate,
    KeepDecision,
    ModelCall,
    ModelMessage,
    PolicyRef,
    ReadDecision,
    ReadState,
    StopDecision,
    StopSignals,
)

if TYPE_CHECKING:
    from citeloop.runtime.recorder import Recorder

LLM_REF = PolicyRef(name="llm", version="1")
SAMPLING = Sampling(temperature=0.0, max_tokens=32, logprobs=True)
"""Greedy, short (an action is one line), with token logprobs for analysis and RL."""
TIMEOUT_S = 30.0
"""Per-attempt timeout; a CPU server answers a decision in a few seconds."""
MAX_RETRIES = 1
FALLBACK_PREFIX = "llm fallback"
_FALLBACK = re.compile(rf"^{FALLBACK_PREFIX} \((?P<cause>[a-z_]+), model_call \d+\)")


class PolicyContextError(RuntimeError):
    """The LLM policy was asked to decide without being told about the run."""


class EndpointError(ValueError):
    """The model server named in a policy spec cannot tell which model it serves."""


def _number(n: int) -> str:
    """A regex alternation admitting exactly the integers 1..n (longest first)."""
    return "(?:" + "|".join(str(i) for i in range(n, 0, -1)) + ")"


def action_constraint(kind: str, n: int, limit: int | None = None,
                      scoring: Literal["sequence"] | None = None) -> Constraint | None:
    """The structured-output constraint admitting the valid action lines of a decision with
    `n` candidates (for read and keep: at most `limit` of them); None when only one exists.
    `scoring="sequence"`: choices (stop, angle, follow) are decided by whole-option likelihood.

    Read/keep regexes cannot exclude a repeated index; `parse_action` rejects one."""
    if kind == "stop":
        return Constraint.choice(["CONTINUE", "STOP"], scoring)
    if kind in INDEX_KINDS:
        word = kind.upper()
        return Constraint.choice([f"{word} {i}" for i in range(1, n + 1)], scoring) if n > 1 else None
    if kind in ("read", "keep"):
        most = min(n, limit if limit is not None else n)
        if most <= 0:
            return None
        word, number = kind.upper(), _number(n)
        return Constraint.regex(rf"{word} (?:NONE|{number}(?:,{number}){{0,{most - 1}}})")
    raise ValueError(f"unknown decision kind {kind!r}; valid: stop, angle, read, keep, follow")


DEFERRED_PREFIX = "llm: the heuristic's "
"""How the reason of a decision starts when a deferral margin kept the heuristic's option."""


class LLMPolicy:
    """Stop, angle, read (with keep) and follow decisions by a served model, with the heuristic as fallback."""

    ref = LLM_REF

    def __init__(self, client: ChatClient, config: ResearchConfig | None = None,
                 prompt_version: int | None = None, choice_scoring: Literal["sequence"] | None = None,
                 stop_margin: float | None = None, defer_margin: float | None = None) -> None:
        self.client = client
        self.choice_scoring = choice_scoring
        """`sequence`: stop, angle and follow by whole-option likelihood (one prefill per option);
        None: the server's choice-constrained decoding."""
        self.stop_margin = stop_margin
        """With sequence scoring: STOP only when its logprob beats CONTINUE's by more than this (a
        decision threshold fitted on training questions, `citeloop.training.calibration`); None: the likelier wins."""
        self.defer_margin = defer_margin
        """With sequence scoring, for angle and follow: the model's likeliest option only when its
        logprob beats the heuristic's option by more than this, else the heuristic's (fitted on
        training questions, `citeloop.training.choice_calibration`); None: the likeliest wins.
        For read the options are the heuristic's reads and those plus one more hit each
        (`read_one_more`), and keep stays the heuristic's."""
        self.prompt_version = prompt_version
        """Template version the prompts render with (None: the current one); a model trained on
        an older dataset is asked in its own version."""
        config = config or ResearchConfig()
        self.fallback_stop = HeuristicStop()
        self.fallback_angle = HeuristicAngle()
        self.fallback_read = HeuristicRead(config.read)
        self.fallback_follow = HeuristicFollow()
        self._recorder: Recorder | None = None
        self._seen = 0
        self._context: RunContext | None = None
        self._subq: str | None = None
        self._doc_id: str | None = None

    # ------------------------------------------------------------------ run context

    def before_decision(self, recorder: Recorder, subq: str | None, doc_id: str | None = None) -> None:
        """Catch up on the events recorded since the last decision; remember what this one concerns."""
        if recorder is not self._recorder:  # a new run
            self._recorder, self._seen, self._context = recorder, 0, None
        for event in recorder.events[self._seen:]:
            self._observe(event)
        self._seen = len(recorder.events)
        self._subq, self._doc_id = subq, doc_id

    def _observe(self, event: BaseEvent) -> None:
        # The same facts `RunContext.of` reads from a finished run, gathered as the run goes.
        if event.type == "plan_created":
            plan = event.plan  # type: ignore[attr-defined]
            self._context = RunContext(question=plan.question)
            self._context.subqs.update({sq.id: sq.question for sq in plan.sub_questions})
        elif self._context is None:
            return
        elif event.type == "subq_added":
            sq = event.sub_question  # type: ignore[attr-defined]
            self._context.subqs[sq.id] = sq.question
        elif event.type == "document_read":
            self._context.docs[event.doc_id] = (event.title, event.publisher, event.published)  # type: ignore[attr-defined]

    def _run(self) -> tuple[Recorder, RunContext]:
        if self._recorder is None or self._context is None:
            raise PolicyContextError(
                "the llm policy renders the run (question, sub-questions, documents) and records its model calls, "
                "so the engine must call before_decision(recorder, subq, doc_id) before each decision; a policy that "
                "wraps it must pass that call on")
        return self._recorder, self._context

    def _pending(self, cls: type[Event], **fields: object) -> Event:
        """The decision event as the engine will record it, minus the choice (rendering never reads it)."""
        recorder, _ = self._run()
        return cls(run_id=recorder.run_id, seq=recorder.seq, policy=LLM_REF, reason="", **fields)  # type: ignore[call-arg]

    # ------------------------------------------------------------------ decisions

    @property
    def _deferring(self) -> bool:
        """A deferral margin applies: read is asked only about one more hit, keep is the heuristic's."""
        return self.defer_margin is not None and self.choice_scoring == "sequence"

    def decide_stop(self, signals: StopSignals) -> Choice:
        event = self._pending(StopDecision, state=signals, choice="continue")
        return self._ask("stop", event, 2, None, lambda action: action,
                         lambda: self.fallback_stop.decide_stop(signals))

    def choose_angle(self, state: AngleState, candidates: list[AngleCandidate]) -> Choice:
        event = self._pending(AngleDecision, subq=self._subq, state=state, candidates=[c.query for c in candidates],
                              angles=[c.angle for c in candidates], choice=0)
        return self._ask("angle", event, len(candidates), None, lambda action: action,
                         lambda: self.fallback_angle.choose_angle(state, candidates))

    def choose_reads(self, state: ReadState, relevance: dict[str, float], limit: int) -> Choice:
        read = set(state.already_read)
        doc_ids = [h.doc_id for h in state.hits if h.doc_id not in read]  # the engine's options: unread hits
        event = self._pending(ReadDecision, subq=self._subq, state=state, candidates=doc_ids, choice=[])
        if self._deferring:
            return self._read_one_more(event, doc_ids, limit, self.fallback_read.choose_reads(state, relevance, limit))
        return self._ask("read", event, len(doc_ids), limit, lambda action: [doc_ids[i] for i in action],
                         lambda: self.fallback_read.choose_reads(state, relevance, limit))

    def choose_keep(self, candidates: list[KeepCandidate], limit: int) -> Choice:
        if self._deferring:
            teacher = self.fallback_read.choose_keep(candidates, limit)
            return Choice(teacher.value, f"llm: the heuristic's keep ({teacher.reason}); under a deferral margin "
                                         "the model is asked only what to read; no model call")
        if self._doc_id is None:
            raise PolicyContextError("a keep decision needs the document it is about: before_decision(..., doc_id=...)")
        event = self._pending(KeepDecision, subq=self._subq, doc_id=self._doc_id, candidates=candidates, choice=[])
        return self._ask("keep", event, len(candidates), limit, lambda action: [candidates[i].sid for i in action],
                         lambda: self.fallback_read.choose_keep(candidates, limit))

    def choose_follow(self, state: FollowState, candidates: list[FollowCandidate]) -> Choice:
        event = self._pending(FollowDecision, subq=self._subq, dep="", state=state, candidates=candidates, choice=0)
        return self._ask("follow", event, len(candidates), None, lambda action: action,
                         lambda: self.fallback_follow.choose_follow(state, candidates))

    def _ask(self, kind: str, event: Event, n: int, limit: int | None, value_of: Callable[[Any], object],
             fallback: Callable[[], Choice]) -> Choice:
        """The model's action (as a choice value, by `value_of`) or, failing that, the fallback's choice."""
        constraint = action_constraint(kind, n, limit, self.choice_scoring)
        if constraint is None:
            only: Action = 0 if kind in INDEX_KINDS else ()  # one candidate, or nothing may be read or kept
            return Choice(value_of(only), f"llm: {format_action(kind, only, n)} is the only valid action; "
                                          "no model call")
        reply, call = self._call(event, constraint)
        if not reply.ok:
            cause = reply.status
        else:
            # The client already held the reply to the constraint (so a read/keep list is within
            # the limit); parsing also rejects an index named twice, which no regex here excludes.
            action = parse_action(kind, reply.text, n)
            if action is not None and kind == "stop" and self.stop_margin is not None and reply.option_scores:
                margin = reply.option_scores["STOP"] - reply.option_scores["CONTINUE"]
                action = "stop" if margin > self.stop_margin else "continue"
                return Choice(value_of(action), f"llm: {action.upper()} by margin {margin:.3f} "
                                                f"{'>' if action == 'stop' else '<='} {self.stop_margin:g} "
                                                f"(model_call {call.seq})")
            if action is not None and kind in INDEX_KINDS and self.defer_margin is not None and reply.option_scores:
                return self._defer(kind, action, reply.option_scores, fallback(), call.seq)
            if action is not None:
                return Choice(value_of(action), f"llm: {reply.text.strip()} (model_call {call.seq})")
            cause = "invalid"
        chosen = fallback()
        return Choice(chosen.value, f"{FALLBACK_PREFIX} ({cause}, model_call {call.seq}): {chosen.reason}")

    def _call(self, event: Event, constraint: Constraint) -> tuple[ModelReply, ModelCall]:
        """Render `event`'s prompt, ask the model under `constraint`, record the call."""
        recorder, context = self._run()
        messages, template = render_prompt(event, context, self.prompt_version)
        prompt = RenderedPrompt(id=template.id, version=template.version,
                                messages=[ModelMessage(role=m["role"], content=m["content"]) for m in messages])  # type: ignore[arg-type]
        reply = self.client.chat(prompt, constraint)
        return reply, record_reply(recorder, prompt, reply, self.client.sampling, constraint, subq=event.subq)

    def _read_one_more(self, event: Event, doc_ids: list[str], limit: int, teacher: Choice) -> Choice:
        """Under a deferral margin: the heuristic's reads, plus the one more hit the model likes best
        when that option's logprob beats the heuristic's reads alone by more than the margin."""
        options = read_one_more(teacher.value, doc_ids, limit)  # type: ignore[arg-type]
        if len(options) == 1:
            return Choice(teacher.value, f"llm: the heuristic's reads ({teacher.reason}); no hit or read left for "
                                         "one more; no model call")
        texts = [format_action("read", tuple(doc_ids.index(d) for d in option), len(doc_ids)) for option in options]
        reply, call = self._call(event, Constraint.choice(texts, "sequence"))
        if not reply.ok or not reply.option_scores or any(t not in reply.option_scores for t in texts):
            cause = reply.status if not reply.ok else "invalid"
            return Choice(teacher.value, f"{FALLBACK_PREFIX} ({cause}, model_call {call.seq}): {teacher.reason}")
        scores = [reply.option_scores[t] for t in texts]
        best = max(range(len(texts)), key=lambda i: scores[i])  # ties: the lowest index, the heuristic's reads
        margin = scores[best] - scores[0]
        if best != 0 and margin > self.defer_margin:  # type: ignore[operator]
            return Choice(options[best], f"llm: {texts[best]} (one more than the heuristic's {texts[0]}) by margin "
                                         f"{margin:.3f} > {self.defer_margin:g} (model_call {call.seq})")
        return Choice(teacher.value, f"{DEFERRED_PREFIX}{texts[0]} kept ({texts[best]} by margin {margin:.3f} "
                                     f"<= {self.defer_margin:g}; model_call {call.seq}): {teacher.reason}")

    def _defer(self, kind: str, best: int, scores: dict[str, float], teacher: Choice, call_seq: int) -> Choice:
        """The model's best option if it beats the heuristic's by more than `defer_margin`, else the heuristic's."""
        word, rule = kind.upper(), int(teacher.value)  # type: ignore[call-overload]
        margin = scores[f"{word} {best + 1}"] - scores[f"{word} {rule + 1}"]
        if best != rule and margin > self.defer_margin:  # type: ignore[operator]
            return Choice(best, f"llm: {word} {best + 1} over the heuristic's {word} {rule + 1} by margin "
                                f"{margin:.3f} > {self.defer_margin:g} (model_call {call_seq})")
        return Choice(rule, f"{DEFERRED_PREFIX}{word} {rule + 1} kept ({word} {best + 1} by margin {margin:.3f} "
                            f"<= {self.defer_margin:g}; model_call {call_seq}): {teacher.reason}")


def llm_decision_counts(events: Sequence[BaseEvent]) -> dict[str, int]:
    """Decisions the llm policy took in a run: `decisions`, `model` (the model's answer used, or
    under a deferral margin the rule applied to it), `deferred` (of those, the heuristic's option
    kept because the model's did not beat it by the margin), `fallback`, `fallback_<cause>` per
    cause, and `no_call` (a single valid action)."""
    counts = {"decisions": 0, "model": 0, "deferred": 0, "fallback": 0, "no_call": 0}
    for e in events:
        if getattr(e, "policy", None) != LLM_REF or not hasattr(e, "reason"):
            continue
        counts["decisions"] += 1
        m = _FALLBACK.match(e.reason)  # type: ignore[attr-defined]
        if m:
            counts["fallback"] += 1
            key = f"fallback_{m.group('cause')}"
            counts[key] = counts.get(key, 0) + 1
        elif e.reason.endswith("no model call"):  # type: ignore[attr-defined]
            counts["no_call"] += 1
        else:
            counts["model"] += 1
            counts["deferred"] += e.reason.startswith(DEFERRED_PREFIX)  # type: ignore[attr-defined]
    return counts


# --------------------------------------------------------------------------- endpoints

PROMPT_IDS = {"stop": {TEMPLATES["stop"].id}, "angle": {TEMPLATES["angle"].id},
              "read": {TEMPLATES["read"].id, TEMPLATES["keep"].id}, "follow": {TEMPLATES["follow"].id}}
"""Prompt ids each policy kind sends (the read policy also decides what to keep)."""


def served_model(url: str, timeout_s: float = 10.0) -> str:
    """The first model `GET URL/models` lists: what `citeloop serve` serves under the folder's path."""
    client = openai.OpenAI(base_url=url, api_key="EMPTY", timeout=timeout_s, max_retries=0)
    try:
        models = [m.id for m in client.models.list()]
    except openai.OpenAIError as exc:
        raise EndpointError(f"cannot list the models served at {url} ({type(exc).__name__}: {str(exc)[:160]}); "
                            "start a server with `citeloop serve MODEL`, or name the model as URL#MODEL") from exc
    if not models:
        raise EndpointError(f"the server at {url} lists no models")
    return models[0]


SCORING_OPTION = "?score=sequence"
"""Appended to an endpoint URL in a policy spec (`llm:stop=URL?score=sequence`): choice decisions
by whole-option likelihood (`citeloop.runtime.llm.sequence_scoring`) instead of the server's
constrained decoding. `&stop_margin=X` (with it) stops only when STOP's logprob beats
CONTINUE's by more than X; `&defer_margin=X` takes an angle or follow option other than the
heuristic's only when its logprob beats the heuristic's option by more than X, and for read adds
one more hit to the heuristic's reads only by that margin (keep then stays the heuristic's)."""


@dataclass(frozen=True)
class EndpointOptions:
    url: str
    scoring: Literal["sequence"] | None = None
    stop_margin: float | None = None
    defer_margin: float | None = None


MARGINS = ("stop_margin", "defer_margin")


def endpoint_options(url: str) -> EndpointOptions:
    """The endpoint URL of a policy spec and the options after its `?`; EndpointError for an unknown one."""
    base, sep, query = url.partition("?")
    if not sep:
        return EndpointOptions(url)
    found: dict[str, str] = {}
    for part in query.split("&"):
        key, eq, value = part.partition("=")
        if not eq or key not in ("score", *MARGINS) or key in found:
            raise EndpointError(f"endpoint option {part!r} in {url!r} is not known; options: score=sequence, "
                                "stop_margin=NUMBER, defer_margin=NUMBER (both with score=sequence)")
        found[key] = value
    if found.get("score", "sequence") != "sequence" or "score" not in found:
        raise EndpointError(f"{url!r}: give score=sequence (the one scoring option; the margins need it)")
    margins: dict[str, float] = {}
    for key in MARGINS:
        if key in found:
            try:
                margins[key] = float(found[key])
            except ValueError:
                raise EndpointError(f"{url!r}: {key}={found[key]!r} is not a number") from None
    return EndpointOptions(base.rstrip("/"), "sequence", **margins)


def llm_policies(endpoints: dict[str, tuple[str, str | None]], config: ResearchConfig,
                 recorded: Sequence[BaseEvent] = ()) -> dict[str, LLMPolicy]:
    """One `LLMPolicy` per endpoint, for each kind in `endpoints` (kind -> (url, model or None));
    a URL ending in `?score=sequence` scores choices by whole-option likelihood.

    With `recorded` events (a replay), requests the run recorded are answered from its
    `model_call` events and only others go to the server; the model and sampling then come
    from the record, so the replay sends byte-identical requests."""
    policies: dict[str, LLMPolicy] = {}
    shared: dict[tuple[str, str | None], LLMPolicy] = {}
    for kind, (url, model) in endpoints.items():
        if (url, model) in shared:
            policies[kind] = shared[(url, model)]
            continue
        kinds = [k for k, endpoint in endpoints.items() if endpoint == (url, model)]
        options = endpoint_options(url)
        ids = set().union(*(PROMPT_IDS[k] for k in kinds))
        calls = [e for e in recorded if isinstance(e, ModelCall) and e.prompt_id in ids]
        name = model or (calls[0].model if calls else served_model(options.url))
        sampling = Sampling.model_validate(calls[0].sampling) if calls else SAMPLING
        live = OpenAIChatClient(ModelEndpoint(base_url=options.url, model=name, timeout_s=TIMEOUT_S,
                                              max_retries=MAX_RETRIES, sampling=sampling))
        client: ChatClient = RecordedChatClient(recorded, name, sampling, live=live) if calls else live
        policies[kind] = shared[(url, model)] = LLMPolicy(client, config, choice_scoring=options.scoring,
                                                            stop_margin=options.stop_margin,
                                                            defer_margin=options.defer_margin)
    return policies
