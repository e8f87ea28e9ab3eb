"""Training rows for the optional model check of the injection filter (`--screen llm`).

    python -m citeloop.eval.screen_dataset --out train-out/data/screen [--per-template 3] [--clean 600]
    citeloop train sft --config configs/train/sft-screen-smollm2.yaml

The check asks a model whether a page holds instructions aimed at an AI system (prompt
`injection_check`, answers `instruction` / `clean` / `undecidable`). SmolLM2-135M as
shipped answers `undecidable` to nearly everything; these rows teach it the two answers
that matter, in the exact prompt the check sends.

- `instruction` rows: a 2WikiMultiHopQA page with one injection template planted as its
  second sentence (as the benchmark plants them). Only templates that are instructions and
  that the defences were already fitted to are used: the `tuned` group and the `seen-8` and
  `seen-10` sets (instructions hidden in prose). Never a `held-out-*` set, so the benchmark
  can measure the trained check on sets it has not seen; not `seen-7` or `seen-9` either,
  which mix planted statements (not instructions) into their templates.
  A template whose text is all invisible characters (tag smuggling) is left out: the
  check sees pages with invisible characters stripped, so nothing of it would be left.
- `clean` rows: other 2WikiMultiHopQA pages, unchanged.

Pages come from the 2WikiMultiHopQA corpus, not the embedded corpus the injection benchmark
plants into and measures false positives on, so no page is both trained on and measured.
Splits are by page: a stable hash puts a tenth of the pages in `test`.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

from citeloop.eval.datasets import DEFAULT_DATA_DIR, load_2wiki_corpus
from citeloop.eval.injection_docs import MARKERS, InjectionTemplate, poisoned_in_place
from citeloop.eval.injection_sets import all_templates
from citeloop.runtime.corpus import Document
from citeloop.runtime.injection import strip_invisible
from citeloop.runtime.llm.screen import LLMInjectionScreen
from citeloop.training.hfdata import MESSAGES_FEATURE, write_dataset

TRAIN_GROUPS = ("tuned", "seen-8", "seen-10")
"""Template groups the rows are made from: instructions the defences were fitted to."""
MIN_SENTENCES = 3
TEST_SHARE = 0.1
COLUMNS: dict[str, Any] = {
    "prompt": MESSAGES_FEATURE,
    "completion": MESSAGES_FEATURE,
    "label": "string",
    "template": "string",
    "group": "string",
    "page": "string",
}


def split_of(page_id: str) -> str:
    digest = hashlib.sha256(page_id.encode("utf-8")).digest()
    return "test" if int.from_bytes(digest[:8], "big") / 2**64 < TEST_SHARE else "train"


def screen_row(screen: LLMInjectionScreen, page: Document, label: str, template: str, group: str) -> dict[str, Any]:
    """One conversation: the check's prompt for the whole page (invisible characters stripped,
    as the engine strips them), answered with `label`."""
    prompt = screen.prompt(page.url or page.id, page.published, [strip_invisible(s) for s in page.sentence_list()])
    return {
        "prompt": [{"role": m.role, "content": m.content} for m in prompt.messages],
        "completion": [{"role": "assistant", "content": label}],
        "label": label, "template": template, "group": group, "page": page.id,
    }


def build_rows(pages: list[Document], templates: tuple[InjectionTemplate, ...], per_template: int,
               n_clean: int, seed: int = 0) -> dict[str, list[dict[str, Any]]]:
    """`per_template` poisoned pages per template and `n_clean` clean pages, drawn without
    repeats from `pages` (shuffled with `seed`), split by page."""
    usable = [p for p in pages if len(p.sentence_list()) >= MIN_SENTENCES]
    needed = len(templates) * per_template + n_clean
    if len(usable) < needed:
        raise ValueError(f"{needed} pages of {MIN_SENTENCES}+ sentences needed, {len(usable)} available")
    random.Random(seed).shuffle(usable)
    screen = LLMInjectionScreen(client=None)  # type: ignore[arg-type] - only renders prompts
    rows: dict[str, list[dict[str, Any]]] = {"train": [], "test": []}
    drawn = iter(usable)
    for n, template in enumerate(t for t in templates for _ in range(per_template)):
        page = next(drawn)
        if not any(m in strip_invisible(template.render(page.title, n)) for m in MARKERS):
            continue  # nothing of it is left once invisible characters go: the check never sees it
        page = poisoned_in_place(page, template, n)
        rows[split_of(page.id)].append(screen_row(screen, page, "instruction", template.name, template.group))
    for _ in range(n_clean):
        page = next(drawn)
        rows[split_of(page.id)].append(screen_row(screen, page, "clean", "", ""))
    for split in rows.values():  # interleave the two labels for training
        random.Random(seed).shuffle(split)
    return rows


def _card(summary: dict[str, Any]) -> str:
    counts = "\n".join(f"| {split} | {c['instruction']} | {c['clean']} |" for split, c in summary["counts"].items())
    return (
        "# citeloop injection-check rows\n\n"
        "SFT rows for the optional model check of the injection filter (`--screen llm`): the\n"
        "`injection_check` prompt over a 2WikiMultiHopQA page, answered `instruction` (one\n"
        f"template of {', '.join(summary['groups'])} planted as its second sentence) or `clean`.\n\n"
        "| split | instruction | clean |\n|---|---|---|\n" + counts + "\n"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA_DIR)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--per-template", type=int, default=3, help="poisoned pages per template")
    parser.add_argument("--clean", type=int, default=600, help="clean pages")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--overwrite", action="store_true")
    args = parser.parse_args(argv)
    if args.per_template < 1 or args.clean < 1:
        parser.error("--per-template and --clean must be at least 1")
    templates = tuple(t for t in all_templates() if t.group in TRAIN_GROUPS)
    try:
        rows = build_rows(list(load_2wiki_corpus(args.data)), templates, args.per_template, args.clean, args.seed)
    except ValueError as exc:
        parser.error(str(exc))
    summary = {
        "groups": list(TRAIN_GROUPS), "templates": len(templates), "per_template": args.per_template,
        "seed": args.seed,
        "counts": {s: {label: sum(r["label"] == label for r in split) for label in ("instruction", "clean")}
                   for s, split in rows.items()},
    }
    try:
        written = write_dataset(args.out, rows, COLUMNS, _card(summary), summary, overwrite=args.overwrite)
    except FileExistsError as exc:
        parser.error(str(exc))
    print(json.dumps({"out": str(args.out), "rows": written, **summary}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
