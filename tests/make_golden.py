"""Regenerate the pinned reference trajectory: `python tests/make_golden.py`.

The golden run is the Leland bridge question, seed 0, heuristic policies, default config,
embedded corpus. The file holds the run's deterministic lines (no `run_meta`), with the
header's `spec.packages` blanked so upgrading a library does not count as a change in
behaviour. `tests/test_engine.py` re-runs it and compares line by line; regenerate only
when a change in the trajectory is intended, and review the diff.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

GOLDEN_QUESTION = "Who directed the film that was shot in or around Leland, North Carolina in 1986?"
GOLDEN_SEED = 0
GOLDEN_POLICY = "heuristic"
GOLDEN_PATH = Path(__file__).resolve().parent / "golden" / "leland_heuristic.jsonl"


def normalise(lines: list[str]) -> list[str]:
    """Drop wall-clock lines and blank the package versions in the header."""
    from citeloop.trajectories.events import parse_event
    from citeloop.trajectories.header import RunHeader
    from citeloop.trajectories.runfile import dumps_line

    out = []
    for line in lines:
        obj = json.loads(line)
        if obj.get("type") == "run_meta":
            continue
        if obj.get("type") == "run_header":
            obj["spec"]["packages"] = {}
            out.append(dumps_line(RunHeader.model_validate(obj)))
        else:
            out.append(dumps_line(parse_event(obj)))
    return out


def golden_lines(kit) -> list[str]:  # noqa: ANN001 - a runtime.session.ResearchKit
    """Run the golden question with `kit` and return its normalised deterministic lines."""
    from citeloop.runtime.session import run_research
    from citeloop.trajectories.runfile import deterministic_lines

    with tempfile.TemporaryDirectory() as tmp:
        _, path = run_research(GOLDEN_QUESTION, kit, None, policy_spec=GOLDEN_POLICY, seed=GOLDEN_SEED,
                               out_dir=Path(tmp))
        assert path is not None
        return normalise(deterministic_lines(path))


def main() -> int:
    from citeloop.runtime.session import ResearchKit

    with tempfile.TemporaryDirectory() as cache:
        kit = ResearchKit.load(cache_dir=Path(cache))
        lines = golden_lines(kit)
    GOLDEN_PATH.parent.mkdir(parents=True, exist_ok=True)
    GOLDEN_PATH.write_text("".join(lines), encoding="utf-8")
    print(f"wrote {len(lines)} lines to {GOLDEN_PATH}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
