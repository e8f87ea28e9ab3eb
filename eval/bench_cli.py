"""Start-up benchmark of the command line: `citeloop --help` and `citeloop show RUN` against
bare `python -c pass`, measured in the same run (these machines are noisy, so the ratios to
bare Python are the figures to compare across machines).

    python -m citeloop.eval.bench_cli [--repeats 7] [--out bench-out/cli.json]

Each command runs `--repeats` times as a fresh process; the table gives the median and the
fastest wall time, and the median's ratio to bare Python's median. Targets: `--help` at most
0.35 s or 4x bare Python, `show` at most 0.6 s or 6x.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from citeloop.runtime.session import ResearchKit, run_research

QUESTION = "Who directed the film that was shot in or around Leland, North Carolina in 1986?"
TARGETS = {"citeloop --help": (0.35, 4.0), "citeloop show RUN": (0.6, 6.0)}


def citeloop_command() -> list[str]:
    """The installed console script beside this Python, else the module behind it."""
    script = Path(sys.executable).with_name("citeloop")
    if script.is_file():
        return [str(script)]
    found = shutil.which("citeloop")
    return [found] if found else [sys.executable, "-m", "citeloop.eval.cli"]


def time_command(argv: list[str], repeats: int) -> list[float]:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
        times.append(time.perf_counter() - start)
        if done.returncode != 0:
            raise SystemExit(f"error: {' '.join(argv)} exited {done.returncode}: {done.stderr.decode()[-500:]}")
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--out", type=Path, default=Path("bench-out/cli.json"))
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    with tempfile.TemporaryDirectory() as tmp:
        _, run = run_research(QUESTION, ResearchKit.load(), out_dir=Path(tmp))
        cli = citeloop_command()
        commands = {"python -c pass": [sys.executable, "-c", "pass"],
                    "citeloop --help": [*cli, "--help"],
                    "citeloop show RUN": [*cli, "show", str(run)]}
        # Interleave the commands so a slow spell of the machine hits all of them alike.
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.repeats):
            for name, command in commands.items():
                times[name] += time_command(command, 1)
    bare = statistics.median(times["python -c pass"])
    rows = []
    for name, ts in times.items():
        median = statistics.median(ts)
        target = TARGETS.get(name)
        met = None if target is None else (median <= target[0] or median / bare <= target[1])
        rows.append({"command": name, "median_s": round(median, 3), "min_s": round(min(ts), 3),
                     "ratio_to_python": round(median / bare, 2), "target": target, "met": met})
    print(f"{'command':<20} {'median s':>9} {'min s':>7} {'x python':>9}  target")
    for r in rows:
        target = "" if r["target"] is None else (f"<= {r['target'][0]} s or {r['target'][1]}x: "
                                                 f"{'met' if r['met'] else 'MISSED'}")
        print(f"{r['command']:<20} {r['median_s']:>9.3f} {r['min_s']:>7.3f} {r['ratio_to_python']:>9.2f}  {target}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"repeats": args.repeats, "command": cli, "rows": rows}, indent=2) + "\n",
                        encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
