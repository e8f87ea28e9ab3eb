"""The LLM planner: a model decomposes the question into the same `Plan` the rule planner
returns, and the same gate (`validate_plan`) decides whether it may run.

One call asks for the plan as JSON (prompt `plan_research`). A reply that does not parse,
does not fit the `Plan` model, or fails the gate is asked for once more with the reasons in
the prompt; if the second reply fails too, the rule planner plans and the run says so (a
`part_fallback` event). The question itself, the assumptions and the evidence needs are
set in code, never taken from the reply.

Planning happens before the run's recorder exists, so the calls are kept and written by
`attach(recorder)`, which the engine calls before `plan_created`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from citeloop.runtime.config import PlannerSettings
from citeloop.runtime.llm.client import ChatClient, Constraint, ModelReply
from citeloop.runtime.llm.json_reply import json_object
from citeloop.runtime.llm.prompts import PromptLibrary, RenderedPrompt
from citeloop.runtime.llm.record import record_reply
from citeloop.runtime.planner import (
    ASSUMPTIONS,
    PlanValidationError,
    RulePlanner,
    check_question,
    validate_plan,
)
from citeloop.runtime.recorder import Recorder
from citeloop.trajectories.events import PartFallback
from citeloop.trajectories.models import Plan
from citeloop.trajectories.errors import ErrorWording, validation_message

PLAN_PROMPT = "plan_research"
_FIXED = {"question", "assumptions"}
"""Plan fields set in code: the model never rewrites the question or the default assumptions."""


def plan_schema() -> dict[str, Any]:
    """The `Plan` JSON schema as sent to the server: without the fields code sets, and with
    list lengths capped at what the gate accepts, so a small model cannot loop to max_tokens."""
    schema = Plan.model_json_schema()
    props = schema["properties"]
    for name in _FIXED:
        props.pop(name, None)
    schema["required"] = [r for r in schema.get("required", []) if r not in _FIXED]
    for name in ("scope_in", "scope_out", "premises", "entities"):
        props[name]["maxItems"] = 6
    props["axes"]["maxItems"] = 5
    props["sub_questions"]["maxItems"] = 12
    sub = schema["$defs"]["SubQuestion"]["properties"]
    sub["depends_on"]["maxItems"] = 4
    sub["expected_claims"]["maxItems"] = 3
    return schema


@dataclass
class _Attempt:
    prompt: RenderedPrompt
    reply: ModelReply
    problem: str


@dataclass
class _PlanningTrace:
    attempts: list[_Attempt] = field(default_factory=list)
    fallback_reason: str | None = None


class LLMPlanner:
    """`Planner` backed by a chat model, with one gated retry and the rule planner behind it."""

    name = "llm"
    version = "1"
    prompt_ids = (PLAN_PROMPT,)

    def __init__(self, client: ChatClient, settings: PlannerSettings | None = None,
                 library: PromptLibrary | None = None) -> None:
        self.client = client
        self.settings = settings or PlannerSettings()
        self.library = library or PromptLibrary()
        self.trace = _PlanningTrace()
        self.ref_args: dict[str, Any] = {}
        """What the run header records about the client (set by `citeloop.runtime.llm.parts.build_parts`)."""

    def plan(self, question: str) -> Plan:
        question = check_question(question)
        self.trace = _PlanningTrace()
        feedback = ""
        for _ in range(2):
            prompt = self.library.get(PLAN_PROMPT).render(question=question, feedback=feedback)
            reply = self.client.chat(prompt, Constraint.json_schema(plan_schema()))
            plan, problem = self._read(question, reply)
            self.trace.attempts.append(_Attempt(prompt, reply, problem))
            if plan is not None:
                return plan
            feedback = ("Your previous plan was rejected: " + problem +
                        "\nReply with a corrected plan as one JSON object.")
        self.trace.fallback_reason = "; ".join(f"attempt {i + 1}: {a.problem}"
                                               for i, a in enumerate(self.trace.attempts))
        return RulePlanner(self.settings).plan(question)

    def _read(self, question: str, reply: ModelReply) -> tuple[Plan | None, str]:
        data, problem = json_object(reply)
        if data is None:
            return None, problem
        fields = {k: v for k, v in data.items() if k not in _FIXED}
        try:
            plan = Plan.model_validate({**fields, "question": question, "assumptions": ASSUMPTIONS})
        except ValidationError as exc:
            errors = validation_message(exc.errors()[:5], ErrorWording(whole="(top)"))
            return None, f"reply does not fit the plan model ({errors})"
        plan = self._with_needs(plan)
        try:
            validate_plan(plan)
        except PlanValidationError as exc:
            return None, "plan gate: " + "; ".join(exc.reasons)
        return plan, ""

    def _with_needs(self, plan: Plan) -> Plan:
        """Evidence needs come from config, as for the rule planner: a model does not set budgets."""
        subs = [sq.model_copy(update={"need": self.settings.sources_needed, "weight": 1.0, "expansion": False})
                for sq in plan.sub_questions]
        return plan.model_copy(update={"sub_questions": subs})

    def attach(self, recorder: Recorder) -> None:
        """Write the planning calls of the last `plan()` (and a fallback, if any) into the run."""
        seqs = [record_reply(recorder, a.prompt, a.reply, self.client.sampling,
                             Constraint.json_schema(plan_schema())).seq
                for a in self.trace.attempts]
        if self.trace.fallback_reason is not None:
            recorder.emit(PartFallback, part="planner", fallback="rule planner",
                          reason=self.trace.fallback_reason, model_call_seqs=seqs)
        recorder.check("plan_gate", self.trace.fallback_reason is not None or
                       any(a.problem for a in self.trace.attempts))
