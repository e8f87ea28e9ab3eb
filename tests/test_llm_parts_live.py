"""Live: one research question end to end with the LLM planner, claim writer, verdict judge
and critic, on SmolLM2-135M-Instruct served by the real vLLM server. Opt-in:

    CITELOOP_VLLM_PYTHON=/work/venvs/vllm/bin/python pytest -m vllm -s tests/test_llm_parts_live.py

A model this small often breaks the designed formats, so the test checks the plumbing, not
the quality: every call is recorded, every JSON-constrained reply that came back `ok` is
JSON, each broken reply got its fallback on record, the run completes, and it replays
exactly with the server gone. Timings, fallbacks and check firing rates are printed.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from pathlib import Path

import pytest

from citeloop.runtime.llm import ModelEndpoint, Sampling
from citeloop.runtime.replay import check_run
from citeloop.runtime.session import ResearchKit, run_research
from citeloop.training.base_model import ModelError, prepare_base_model
from citeloop.training.serve import served
from citeloop.trajectories.events import ModelCall, PartFallback
from citeloop.trajectories.runfile import read_run

pytestmark = pytest.mark.vllm

LELAND = "Who directed the film that was shot in or around Leland, North Carolina in 1986?"


@pytest.fixture(scope="module")
def smollm2(tmp_path_factory: pytest.TempPathFactory) -> Path:
    try:
        return prepare_base_model(tmp_path_factory.mktemp("smollm2") / "model")
    except ModelError as exc:
        pytest.skip(f"SmolLM2 is not prepared here: {exc}")


def test_one_question_end_to_end_with_model_parts(vllm_interpreter: str, smollm2: Path, kit: ResearchKit,
                                                  tmp_path: Path) -> None:
    started = time.perf_counter()
    with served(smollm2, python=vllm_interpreter, max_model_len=2048, log_path=tmp_path / "vllm.log",
                timeout_s=600) as server:
        ready_s = time.perf_counter() - started
        endpoint = ModelEndpoint(base_url=server.endpoint, model=server.models()[0], timeout_s=300,
                                 max_retries=0, sampling=Sampling(max_tokens=512))
        t0 = time.perf_counter()
        result, path = run_research(LELAND, kit, out_dir=tmp_path / "runs", planner="llm", writer="llm",
                                    verifier_name="judge", critic="llm", llm=endpoint)
        run_s = time.perf_counter() - t0
    assert path is not None and result.outcome.status == "completed"
    run = read_run(path)
    calls = [e for e in run.events if isinstance(e, ModelCall)]
    assert calls[0].prompt_id == "plan_research" and {"write_claims", "critic_weakest"} & {c.prompt_id for c in calls}
    for call in calls:
        if call.status == "ok" and call.constraint and call.constraint["kind"] == "json":
            json.loads(call.completion)  # the server honoured the structured-output constraint
    fallbacks = [e for e in run.events if isinstance(e, PartFallback)]
    for note in fallbacks:
        assert note.model_call_seqs and all(run.events[s].type == "model_call" for s in note.model_call_seqs)
    check = check_run(run)  # the server is gone: the replies come from the record
    assert check.ok, check.divergence
    meta = run.events[-1]
    print(json.dumps({
        "server_ready_s": round(ready_s, 1), "run_s": round(run_s, 1),
        "calls": dict(Counter(f"{c.prompt_id}:{c.status}" for c in calls)),
        "fallbacks": dict(Counter(f"{f.part}->{f.fallback}" for f in fallbacks)),
        "checks": meta.checks,  # type: ignore[attr-defined]
        "claims_kept": result.outcome.counts["claims_kept"],
    }, indent=2))
