"""The run viewer's page: one self-contained static HTML file per run, diff or evaluation.

`run_page`, `diff_page` and `eval_page` build the page's data (see `eval.viewer_data`) and
`render_page` puts it into the template of `eval/viewer_assets/`: CSS and scripts inlined,
the data in one `<script type="application/json">` block. Nothing is fetched when the page
opens (no server, no CDN); a Content-Security-Policy allows only the page's own script, by
hash, so even text that escaped its escaping could not run. The data block is escaped so
that no `</script>` or `<!--` in corpus text can end it: every `<`, `>` and `&` is written
as a JSON `\\u` escape, which `JSON.parse` reads back unchanged.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
from importlib import resources
from pathlib import Path
from typing import Any

from citeloop.eval.viewer_data import LLM_FIELDS, run_view_data
from citeloop.trajectories.diff import diff_runs
from citeloop.trajectories.runfile import RunFile

SCRIPTS = ("core.js", "run_report.js", "run_trace.js", "eval_view.js", "main.js")
"""Concatenated in this order into the page's one inline script."""
DATA_ID = "citeloop-data"
_SLOT = re.compile(r"\{\{(TITLE|CSP|CSS|JS|DATA)\}\}")
_JSON_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


class ViewerError(ValueError):
    """The input cannot be shown (e.g. a file that is not an eval.json)."""


def _asset(name: str) -> str:
    return resources.files("citeloop.eval").joinpath("viewer_assets", name).read_text(encoding="utf-8")


def embed_json(data: Any) -> str:
    """JSON that is safe inside a `<script>` element: no `<`, `>` or `&` appears literally."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return re.sub("[<>&\u2028\u2029]", lambda m: _JSON_ESCAPES[m.group()], text)


def extract_json(page: str) -> Any:
    """The data block of a generated page, parsed (what the page's script reads)."""
    m = re.search(rf'<script type="application/json" id="{DATA_ID}">(.*?)</script>', page, re.S)
    if m is None:
        raise ViewerError("no data block in this page")
    return json.loads(m.group(1))


def render_page(title: str, data: dict[str, Any]) -> str:
    """The whole page as one string."""
    script = "\n".join(_asset(name) for name in SCRIPTS)
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    csp = (f"default-src 'none'; script-src 'sha256-{digest}'; style-src 'unsafe-inline'; img-src data:; "
           "base-uri 'none'; form-action 'none'")
    slots = {"TITLE": html.escape(title), "CSP": html.escape(csp), "CSS": _asset("viewer.css"), "JS": script,
             "DATA": embed_json(data)}
    # One pass: text put into a slot is never scanned for further slots.
    return _SLOT.sub(lambda m: slots[m.group(1)], _asset("page.html"))


def _meta(kind: str) -> dict[str, Any]:
    from importlib.metadata import PackageNotFoundError, version

    try:
        citeloop = version("citeloop")
    except PackageNotFoundError:  # running from a source tree
        citeloop = "dev"
    return {"kind": kind, "citeloop": citeloop, "llm_fields": list(LLM_FIELDS)}


def run_page(run: RunFile) -> str:
    data = {**_meta("run"), "runs": [run_view_data(run, "A")], "diff": None, "eval": None}
    return render_page(f"citeloop · {run.header.spec.question}", data)


def diff_page(before: RunFile, after: RunFile) -> str:
    """Run A's page with run B beside it and the replay diff (raises `DiffError` across questions)."""
    diff = diff_runs(before.header, before.events, after.header, after.events)
    data = {**_meta("diff"), "runs": [run_view_data(before, "A"), run_view_data(after, "B")],
            "diff": diff.model_dump(mode="json"), "eval": None}
    return render_page(f"citeloop diff · {before.header.spec.question}", data)


def load_eval_json(path: Path) -> dict[str, Any]:
    """An `eval.json` written by `citeloop eval`, checked enough to be shown."""
    if not path.is_file():
        raise ViewerError(f"{path}: no such file")
    try:
        payload = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise ViewerError(f"{path}: not valid JSON ({exc})") from exc
    if not isinstance(payload, dict) or not isinstance(payload.get("dataset"), dict):
        raise ViewerError(f"{path}: not an eval.json written by `citeloop eval` (no dataset block)")
    if not isinstance(payload.get("policies"), dict) and not isinstance(payload.get("verification"), dict):
        raise ViewerError(f"{path}: an eval.json needs a policies or a verification block")
    return payload


def eval_page(payload: dict[str, Any], runs: list[RunFile] = ()) -> str:  # type: ignore[assignment]
    """The evaluation table and charts; `runs` whose ids the rows name become drill-downs."""
    wanted = {row.get("run_id") for p in (payload.get("policies") or {}).values()
              for row in p.get("per_question", []) if isinstance(row, dict)}
    data = {**_meta("eval"), "runs": [run_view_data(r, r.run_id) for r in runs if r.run_id in wanted],
            "diff": None, "eval": payload}
    return render_page(f"citeloop eval · {payload['dataset'].get('name', '?')}", data)
