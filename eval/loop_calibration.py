"""Decision thresholds a `citeloop loop` fits on its training runs before the evaluation, with
the served model: when the trained stop policy stops (`training.calibration`), and when a
trained angle, follow or read policy overrules the heuristic (`training.choice_calibration`).

Both branch the kept training runs' decisions of that kind, ask the served model to score every
option of each rendered prompt (whole-option likelihood), and pick the threshold whose simulated
training runs score best. The evaluation questions are never looked at.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from citeloop.runtime.llm.client import Constraint, ModelEndpoint, OpenAIChatClient
from citeloop.runtime.llm.prompts import RenderedPrompt
from citeloop.runtime.policies.llm import served_model
from citeloop.runtime.policies.prompts import TEMPLATES
from citeloop.runtime.session import ResearchKit
from citeloop.training.calibration import NEVER, fit_stop_margin, simulate, stop_points
from citeloop.training.choice_calibration import choice_points, fit_defer_margin, read_points, simulate_choices
from citeloop.training.outcomes import OutcomeSettings
from citeloop.training.pairs import roll_decisions
from citeloop.trajectories.events import ModelMessage


class CalibrationError(ValueError):
    """The served model or the training runs cannot give a threshold; the message says why."""


def _client(endpoint: str) -> OpenAIChatClient:
    return OpenAIChatClient(ModelEndpoint(base_url=endpoint, model=served_model(endpoint), timeout_s=600,
                                          max_retries=1))


def _scores(client: OpenAIChatClient, kind: str, messages: list[dict[str, str]], options: list[str]) -> dict[str, float]:
    template = TEMPLATES[kind]
    prompt = RenderedPrompt(id=template.id, version=template.version,
                            messages=[ModelMessage(**m) for m in messages])  # type: ignore[arg-type]
    reply = client.chat(prompt, Constraint.choice(options, scoring="sequence"))
    if not reply.ok or not reply.option_scores:
        raise CalibrationError(f"calibrate: the served model did not score a {kind} decision ({reply.error})")
    return reply.option_scores


def calibrate_stop(kept: list[Path], settings: OutcomeSettings, kit: ResearchKit, engine: str,
                   endpoint: str) -> dict[str, Any]:
    """The stop threshold fitted on the kept training runs' branched stop decisions; the figures
    of the teacher, the plain model (the likelier option) and the fit."""
    rolled = roll_decisions(kept, "stop", 1, settings, kit=kit, engine=engine)
    client = _client(endpoint)

    def margin_of(messages: list[dict[str, str]]) -> float:
        scores = _scores(client, "stop", messages, ["CONTINUE", "STOP"])
        return scores["STOP"] - scores["CONTINUE"]

    points = stop_points(rolled, margin_of)
    if not points:
        raise CalibrationError("calibrate_stop: the kept training runs have no branched stop decision")
    threshold, table = fit_stop_margin(points)
    return {"threshold": threshold, "decisions": len(points), "runs": len({p.path for p in points}),
            "teacher": simulate(points, NEVER), "likelier_option": simulate(points, 0.0),
            "fitted": simulate(points, threshold), "candidates": table}


def calibrate_choice(kind: str, kept: list[Path], settings: OutcomeSettings, kit: ResearchKit, engine: str,
                     endpoint: str, alternatives: int, read_options: str = "all") -> dict[str, Any]:
    """The deferral threshold of an angle, follow or read policy fitted on the kept training runs'
    branched decisions (`alternatives` per decision; for read, enough to reach the one-more-read
    options, or `read_options="one_more"`); the figures of the teacher, the plain model (its likeliest
    option always) and the fit."""
    rolled = roll_decisions(kept, kind, alternatives, settings, kit=kit, engine=engine, read_options=read_options)
    client, word = _client(endpoint), kind.upper()

    def scores_of(messages: list[dict[str, str]], n: int) -> dict[int, float]:
        scores = _scores(client, kind, messages, [f"{word} {i}" for i in range(1, n + 1)])
        return {i: scores[f"{word} {i + 1}"] for i in range(n)}

    if kind == "read":
        points = read_points(rolled, lambda messages, texts: _scores(client, kind, messages, texts))
    else:
        points = choice_points(rolled, kind, scores_of)
    if not points:
        raise CalibrationError(f"calibrate_choice: the kept training runs have no branched {kind} decision")
    threshold, table = fit_defer_margin(points)
    return {"kind": kind, "threshold": threshold, "decisions": len(points), "runs": len({p.path for p in points}),
            "model_differs": sum(p.best != p.teacher for p in points),
            "teacher": simulate_choices(points, NEVER), "likeliest_option": simulate_choices(points, -NEVER),
            "fitted": simulate_choices(points, threshold), "candidates": table}
