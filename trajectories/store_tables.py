"""The store's tables: their polars schemas, and the builders that turn decoded run files
(`store_decode.DecodedFile`) into rows.

- `runs`: one row per run: header facts (question, seed, policy spec, planner, verifier,
  tools, corpus, config digest, schema version as written), `n_events`, `finished`,
  `torn` and `problem`, outcome `status`/`stop_reason`, `count_*` and `metric_*` columns
  from `run_finished`, `wall_ms`, and the file it came from (path, digest, sizes).
- `events`: one row per event: `run_id, seq, parent_seq, subq, type, payload`; `payload`
  is the event's other fields as compact JSON, as recorded. A `text_blob`'s payload keeps
  only its digest; the text itself goes to `blobs`.
- `blobs`: `digest, text`, once per digest across the whole store.
- `decisions`: `run_id, seq, parent_seq, subq, kind (angle|read|keep|stop), policy,
  policy_version, choice (JSON), n_candidates, reason, round`. `round` is the search round
  the decision fell in (recorded on angle and stop decisions, carried forward to the read
  and keep decisions after them).
- `tool_calls`: `run_id, seq, parent_seq, subq, tool (search|read), query, angle, doc_id,
  status, attempts, attempt_statuses, n_hits, round`.
- `claims`: `run_id, claim_id, seq, subq, text, final_text, card_ids, verdict, checker,
  support, n_checks, rewritten, weakened, dropped, drop_reason` (verdict, checker, support:
  of the claim's last check).

Event payloads are the lines as written, less the leading `run_id, seq, parent_seq, subq,
type` fields (kept in the shape their schema version wrote; `runs.schema_version` says
which). The `type` column holds the current tag, also for lines of files written before
a tag was renamed (`events.RENAMED_TAGS`). The rows of `decisions`, `tool_calls` and `claims` come from the decoder as tuples
in these schemas' column order.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from citeloop.trajectories.store_decode import DecodedFile

TABLES = ("runs", "events", "blobs", "decisions", "tool_calls", "claims")
RUN_TABLES = tuple(t for t in TABLES if t != "blobs")
"""Tables whose rows belong to one run (blobs are shared by digest)."""
BATCH_TABLES = ("events", "decisions", "tool_calls", "claims")
"""Tables built batch by batch (one row per event, decision, tool call or claim)."""

TABLE_SCHEMAS: dict[str, dict[str, pl.DataType]] = {
    "runs": {
        "run_id": pl.String(), "question": pl.String(), "seed": pl.Int64(), "policy": pl.String(),
        "policies": pl.String(), "planner": pl.String(), "planner_version": pl.String(), "verifier": pl.String(),
        "verifier_version": pl.String(), "search_tool": pl.String(), "read_tool": pl.String(),
        "corpus_fingerprint": pl.String(), "corpus_source": pl.String(), "config_digest": pl.String(),
        "schema_version": pl.Int64(), "parent_run_id": pl.String(), "branch_seq": pl.Int64(),
        "n_events": pl.Int64(), "finished": pl.Boolean(), "torn": pl.Boolean(), "problem": pl.String(),
        "status": pl.String(), "stop_reason": pl.String(), "wall_ms": pl.Float64(), "file": pl.String(),
        "file_digest": pl.String(), "file_bytes": pl.Int64(), "jsonl_bytes": pl.Int64(), "part": pl.Int64(),
    },
    "events": {
        "run_id": pl.String(), "seq": pl.Int64(), "parent_seq": pl.Int64(), "subq": pl.String(),
        "type": pl.String(), "payload": pl.String(),
    },
    "blobs": {"digest": pl.String(), "text": pl.String()},
    "decisions": {
        "run_id": pl.String(), "seq": pl.Int64(), "parent_seq": pl.Int64(), "subq": pl.String(),
        "kind": pl.String(), "policy": pl.String(), "policy_version": pl.String(), "choice": pl.String(),
        "n_candidates": pl.Int32(), "reason": pl.String(), "round": pl.Int64(),
    },
    "tool_calls": {
        "run_id": pl.String(), "seq": pl.Int64(), "parent_seq": pl.Int64(), "subq": pl.String(),
        "tool": pl.String(), "query": pl.String(), "angle": pl.String(), "doc_id": pl.String(),
        "status": pl.String(), "attempts": pl.Int32(), "attempt_statuses": pl.List(pl.String()),
        "n_hits": pl.Int32(), "round": pl.Int64(),
    },
    "claims": {
        "run_id": pl.String(), "claim_id": pl.String(), "seq": pl.Int64(), "subq": pl.String(),
        "text": pl.String(), "final_text": pl.String(), "card_ids": pl.List(pl.String()),
        "verdict": pl.String(), "checker": pl.String(), "support": pl.Float64(), "n_checks": pl.Int32(),
        "rewritten": pl.Boolean(), "weakened": pl.Boolean(), "dropped": pl.Boolean(), "drop_reason": pl.String(),
    },
}

_BASE_KEYS = ("run_id", "seq", "parent_seq", "subq", "type")
# The fields every event line starts with, in the order pydantic writes them; stripped from
# the payload. Lines written in another key order fall back to json.loads (`_payload_slow`).
_BASE_PREFIX = (
    r'^\{"run_id":"(?:[^"\\]|\\.)*","seq":-?\d+,"parent_seq":(?:null|-?\d+),'
    r'"subq":(?:null|"(?:[^"\\]|\\.)*"),"type":"[a-z_]+",?'
)


def _payload_slow(line: str) -> str:
    """The payload of a line not written in pydantic's key order: parse, drop, re-serialise."""
    data = json.loads(line)
    if data.get("type") == "text_blob":  # the text lives in `blobs`
        data.pop("text", None)
    for key in _BASE_KEYS:
        data.pop(key, None)
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


def split_lines(body: bytes, n: int) -> pl.Series | None:
    """The lines of `body` (each ending in a newline) as a String series; None unless they
    are `n` lines of UTF-8."""
    if not body:
        return pl.Series("line", [], dtype=pl.String()) if n == 0 else None
    try:  # the CSV reader splits lines in parallel; JSON text holds no raw \x1f
        lines = pl.read_csv(body, has_header=False, separator="\x1f", quote_char=None,
                            schema={"line": pl.String()})["line"]
    except pl.exceptions.PolarsError:
        return None  # not UTF-8
    if lines.len() == n:
        return lines
    # e.g. a raw carriage return (JSON allows one between tokens): split on newlines only
    split = body.split(b"\n")[:-1]
    return pl.Series("line", split, dtype=pl.Binary()).cast(pl.String()) if len(split) == n else None


def _frame(table: str, rows: list[tuple[Any, ...]], json_lists: tuple[str, ...] = ()) -> pl.DataFrame:
    """A table from row tuples; its list columns come as JSON text, decoded here in bulk."""
    schema = TABLE_SCHEMAS[table]
    columns = list(zip(*rows)) if rows else [[] for _ in schema]
    df = pl.DataFrame({k: pl.Series(k, col, dtype=pl.String() if k in json_lists else dtype)
                       for (k, dtype), col in zip(schema.items(), columns)})
    return df.with_columns(pl.col(k).str.json_decode(schema[k]) for k in json_lists) if json_lists else df


def _events_table(files: list[DecodedFile], lines: pl.Series) -> pl.DataFrame:
    counts = np.array([f.n_events for f in files], dtype=np.int64)
    starts = np.cumsum(counts) - counts
    ev = pl.DataFrame({
        "run_id": pl.Series([f.run_id for f in files], dtype=pl.String()).gather(
            np.repeat(np.arange(len(files)), counts)),
        "seq": np.arange(int(counts.sum()), dtype=np.int64) - np.repeat(starts, counts),
        "parent_seq": pl.Series([x for f in files for x in f.parent_seq], dtype=pl.Int64()),
        "subq": pl.Series([x for f in files for x in f.subq], dtype=pl.String()),
        "type": pl.Series([x for f in files for x in f.type], dtype=pl.String()),
        "line": lines,
    })
    ev = ev.with_columns(payload=pl.col("line").str.replace(_BASE_PREFIX, "{"))
    # Payloads not made by stripping the prefix: blobs (from the decoder), and lines in another
    # key order (nothing was stripped) or blobs whose digest is not plain hex, re-serialised.
    fixed = {int(starts[i]) + seq: p for i, f in enumerate(files) for seq, p in f.blob_payloads}
    slow = ev.select(pl.col("line").str.len_bytes() == pl.col("payload").str.len_bytes()).to_series()
    if fixed:
        slow = slow.scatter(list(fixed), False)
    line = ev["line"]
    for i in [i for i, p in fixed.items() if p is None] + np.flatnonzero(slow.to_numpy()).tolist():
        fixed[i] = _payload_slow(line[i])
    payload = ev["payload"]
    if fixed:
        payload = payload.scatter(list(fixed), pl.Series(list(fixed.values()), dtype=pl.String()))
    return ev.select("run_id", "seq", "parent_seq", "subq", "type").with_columns(payload=payload)


def runs_table(files: list[DecodedFile], part: int) -> pl.DataFrame:
    """One row per file; `count_*` and `metric_*` columns for every key its outcome has."""
    rows = []
    for f in files:
        outcome = f.outcome
        row = f.run_row | {
            "schema_version": f.schema_version, "n_events": f.n_events, "finished": f.finished,
            "torn": f.problem is not None, "problem": f.problem,
            "status": None if outcome is None else outcome.status,
            "stop_reason": None if outcome is None else outcome.stop_reason, "wall_ms": f.wall_ms, "file": f.path,
            "file_digest": f.digest, "file_bytes": f.file_bytes, "jsonl_bytes": f.jsonl_bytes, "part": part,
        }
        if outcome is not None:
            row.update({f"count_{k}": v for k, v in sorted((outcome.counts or {}).items())})
            row.update({f"metric_{k}": v for k, v in sorted((outcome.metrics or {}).items())})
        rows.append(row)
    extra = sorted({k for r in rows for k in r} - set(TABLE_SCHEMAS["runs"]))
    schema = TABLE_SCHEMAS["runs"] | {k: pl.Int64() if k.startswith("count_") else pl.Float64() for k in extra}
    return pl.DataFrame(rows, schema=schema)


def blobs_table(digests: list[str], texts: list[str | None]) -> pl.DataFrame:
    return pl.DataFrame({"digest": digests, "text": texts}, schema=TABLE_SCHEMAS["blobs"])


@dataclass(slots=True)
class Batch:
    """Files read together, and their rows of the tables that hold one row per event,
    decision, tool call or claim (in file order, each run's in seq order)."""

    files: list[DecodedFile]
    tables: dict[str, pl.DataFrame]


def batch_tables(files: list[DecodedFile], lines: pl.Series) -> dict[str, pl.DataFrame]:
    """The `BATCH_TABLES` rows of `files`, whose event lines (all files', in order) are `lines`."""
    return {
        "events": _events_table(files, lines),
        "decisions": _frame("decisions", [r for f in files for r in f.decisions]),
        "tool_calls": _frame("tool_calls", [r for f in files for r in f.tool_calls], ("attempt_statuses",)),
        "claims": _frame("claims", [r for f in files for r in f.claims], ("card_ids",)),
    }


def n_rows(f: DecodedFile, table: str) -> int:
    """How many rows of `table` (one of `BATCH_TABLES`) file `f` gives."""
    return f.n_events if table == "events" else len(getattr(f, table))
