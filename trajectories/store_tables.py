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
from itertools import accumulate
from typing import Any

import msgspec
import polars as pl

from citeloop.trajectories.store_decode import DecodedFile

TABLES = ("runs", "events", "blobs", "decisions", "tool_calls", "claims")
RUN_TABLES = tuple(t for t in TABLES if t != "blobs")
"""Tables whose rows belong to one run (blobs are shared by digest)."""
BATCH_TABLES = ("runs", "events", "decisions", "tool_calls", "claims")
"""Tables built batch by batch (one row per run, event, decision, tool call or claim)."""

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


def _frame(table: str, rows: list[tuple[Any, ...]], json_lists: tuple[str, ...] = (),
           raw_json: tuple[str, ...] = ()) -> pl.DataFrame:
    """A table from row tuples; its list columns come as JSON text, decoded here in bulk, and
    its `raw_json` columns as `msgspec.Raw`, made compact JSON text here in bulk (`_json_texts`)."""
    schema = TABLE_SCHEMAS[table]
    columns = list(zip(*rows)) if rows else [[] for _ in schema]
    df = pl.DataFrame({k: _json_texts(col) if k in raw_json else
                       pl.Series(k, col, dtype=pl.String() if k in json_lists else dtype)
                       for (k, dtype), col in zip(schema.items(), columns)})
    return df.with_columns(pl.col(k).str.json_decode(schema[k]) for k in json_lists) if json_lists else df


def _json_texts(raws: tuple[msgspec.Raw, ...] | list[msgspec.Raw]) -> pl.Series:
    """Each raw JSON value as compact text: as written, unless it has whitespace (then parsed
    and written again); null where the field was missing or null. One join and one split for
    all of them, not a call each: a batch has thousands of decisions."""
    if not raws:
        return pl.Series([], dtype=pl.String())
    # A raw value holds no newline: it was cut from the lines joined with commas (`decode_lines`).
    texts = pl.Series([b"\n".join(raws)], dtype=pl.Binary()).cast(pl.String()).str.split("\n").explode()
    texts = pl.select(pl.when(texts.is_in(["", "null"])).then(None).otherwise(texts)).to_series()
    spaced = texts.str.contains(r"[ \t\r\n]").fill_null(False).arg_true().to_list()
    if spaced:
        texts = texts.scatter(spaced, [json.dumps(json.loads(texts[i]), separators=(",", ":"), ensure_ascii=False)
                                       for i in spaced])
    return texts


def _events_table(files: list[DecodedFile], lines: pl.Series) -> pl.DataFrame:
    counts = [f.n_events for f in files]
    starts = list(accumulate(counts, initial=0))
    # run_id and seq repeated per event in polars (numpy arrays here would cost polars a
    # first-use import of numpy.ma in every ingest); files without events give no rows.
    ids = pl.DataFrame({"run_id": [f.run_id for f in files], "n": counts},
                       schema={"run_id": pl.String(), "n": pl.Int64()}).filter(pl.col("n") > 0)
    ev = ids.select(pl.col("run_id").repeat_by("n").explode(), seq=pl.int_ranges(0, "n").explode()).with_columns(
        parent_seq=pl.Series([x for f in files for x in f.parent_seq], dtype=pl.Int64()),
        subq=pl.Series([x for f in files for x in f.subq], dtype=pl.String()),
        type=pl.Series([x for f in files for x in f.type], dtype=pl.String()),
        line=lines,
    ).with_columns(payload=pl.col("line").str.replace(_BASE_PREFIX, "{"))
    # Payloads not made by stripping the prefix: blobs (from the decoder), and lines in another
    # key order (nothing was stripped) or blobs whose digest is not plain hex, re-serialised.
    fixed = {starts[i] + seq: p for i, f in enumerate(files) for seq, p in f.blob_payloads}
    slow = ev.select(pl.col("line").str.len_bytes() == pl.col("payload").str.len_bytes()).to_series()
    if fixed:
        slow = slow.scatter(list(fixed), False)
    line = ev["line"]
    for i in [i for i, p in fixed.items() if p is None] + slow.arg_true().to_list():
        fixed[i] = _payload_slow(line[i])
    payload = ev["payload"]
    if fixed:
        payload = payload.scatter(list(fixed), pl.Series(list(fixed.values()), dtype=pl.String()))
    return ev.select("run_id", "seq", "parent_seq", "subq", "type").with_columns(payload=payload)


_HEADER_COLUMNS = ("run_id", "question", "seed", "policy", "policies", "planner", "planner_version", "verifier",
                   "verifier_version", "search_tool", "read_tool", "corpus_fingerprint", "corpus_source",
                   "config_digest", "parent_run_id", "branch_seq")
"""The `runs` columns that come from the header (`DecodedFile.run_row`)."""


def runs_table(files: list[DecodedFile], part: int | None = None) -> pl.DataFrame:
    """One row per file; `count_*` and `metric_*` columns (sorted) for every key its outcome
    has. `part` may be left null and set when the part is written (`concat_runs`)."""
    outcomes = [f.outcome for f in files]
    columns: dict[str, list[Any]] = {k: [f.run_row[k] for f in files] for k in _HEADER_COLUMNS}
    columns |= {
        "schema_version": [f.schema_version for f in files], "n_events": [f.n_events for f in files],
        "finished": [f.finished for f in files], "torn": [f.problem is not None for f in files],
        "problem": [f.problem for f in files], "status": [o and o.status for o in outcomes],
        "stop_reason": [o and o.stop_reason for o in outcomes], "wall_ms": [f.wall_ms for f in files],
        "file": [f.path for f in files], "file_digest": [f.digest for f in files],
        "file_bytes": [f.file_bytes for f in files], "jsonl_bytes": [f.jsonl_bytes for f in files],
        "part": [part] * len(files),
    }
    extras: dict[str, list[Any]] = {}
    for i, o in enumerate(outcomes):
        if o is None:
            continue
        for prefix, values in (("count_", o.counts), ("metric_", o.metrics)):
            for k, v in (values or {}).items():
                column = extras.get(prefix + k)
                if column is None:
                    column = extras[prefix + k] = [None] * len(files)
                column[i] = v
    schema = TABLE_SCHEMAS["runs"] | {k: pl.Int64() if k.startswith("count_") else pl.Float64() for k in sorted(extras)}
    columns |= extras
    # Column by column: polars builds a frame from lists much faster than from row dicts.
    return pl.DataFrame({k: pl.Series(k, columns[k], dtype=dtype) for k, dtype in schema.items()})


def concat_runs(frames: list[pl.DataFrame], part: int) -> pl.DataFrame:
    """`runs` rows of several batches as one part's: the union of their `count_*` and
    `metric_*` columns, sorted after the fixed ones (as `runs_table` of all their files)."""
    df = pl.concat(frames, how="diagonal") if len(frames) > 1 else frames[0]
    extra = sorted(set(df.columns) - set(TABLE_SCHEMAS["runs"]))
    return df.select(*TABLE_SCHEMAS["runs"], *extra).with_columns(part=pl.lit(part, dtype=pl.Int64()))


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
        "runs": runs_table(files),
        "events": _events_table(files, lines),
        "decisions": _frame("decisions", [r for f in files for r in f.decisions], raw_json=("choice",)),
        "tool_calls": _frame("tool_calls", [r for f in files for r in f.tool_calls], ("attempt_statuses",)),
        "claims": _frame("claims", [r for f in files for r in f.claims], ("card_ids",)),
    }


def n_rows(f: DecodedFile, table: str) -> int:
    """How many rows of `table` (one of `BATCH_TABLES`) file `f` gives."""
    if table == "runs":
        return 1
    return f.n_events if table == "events" else len(getattr(f, table))
