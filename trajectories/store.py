"""The trajectory store: many run files compacted into Parquet tables, queried with polars.

`citeloop store ingest RUNS_DIR --store STORE` reads run files (`*.jsonl`, `*.jsonl.zst`,
searched recursively) and appends them to these tables, one Parquet part per table per
ingest chunk (`STORE/<table>/part-NNNNN.parquet`):

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

Ingest is incremental and idempotent. `manifest.json` records every file seen (absolute
path -> content digest) and every run (file, digest, part): an unchanged file is skipped
without being parsed; a changed file, or a new file holding a run id already stored,
replaces that run's rows. Within one ingest, two files of the same run resolve to the one
with the most events (complete before torn, then by path). Parts not named in the manifest
(left by a crash) are ignored by readers and deleted by the next ingest. One writer at a
time.

Reading. Headers are validated with `RunHeader` (so newer schemas are refused and older
ones migrated). Event lines are parsed as JSON by polars in bulk and checked for
`type`, `run_id` and consecutive `seq`; full pydantic validation of every event runs only
for files that look damaged (a torn tail, a bad line, a broken zstd frame) and, with
`validate=True` (`--validate`), for all files. Either way a torn file is stored up to its
last good event (the same cut `read_run` makes) with `torn=True` and `problem` saying why.
Without `validate`, a line that is well-formed JSON of the right run, type and seq but not
a valid event (a renamed field, a bad enum value) is stored as is. Event payloads are kept
in the shape their schema version wrote; `runs.schema_version` says which.

Typical queries (functions in `trajectories.store_queries`, used by `citeloop store stats`)::

    import polars as pl
    from trajectories.store import Store
    store = Store.open("store")

    # decisions by kind and policy
    (store.scan("decisions").group_by("kind", "policy", "policy_version")
         .agg(n=pl.len(), runs=pl.col("run_id").n_unique(), mean_candidates=pl.col("n_candidates").mean())
         .sort("kind", "policy").collect())

    # searches per sub-question: every (run, sub-question) seen in events, with its searches
    subqs = store.scan("events").filter(pl.col("subq").is_not_null()).select("run_id", "subq").unique()
    searches = (store.scan("tool_calls").filter(pl.col("tool") == "search")
                    .group_by("run_id", "subq").agg(searches=pl.len()))
    (subqs.join(searches, on=["run_id", "subq"], how="left").fill_null(0)
          .group_by("searches").agg(subquestions=pl.len()).sort("searches").collect())

    # verdict distribution of drafted claims (final verdict; null: the run stopped before it)
    (store.scan("claims").group_by("verdict")
         .agg(n=pl.len(), dropped=pl.col("dropped").sum(), rewritten=pl.col("rewritten").sum())
         .with_columns(share=pl.col("n") / pl.col("n").sum()).sort("n", descending=True).collect())

    # decision payloads are in `events` too: e.g. the stop signals of every stop decision
    (store.scan("events").filter(pl.col("type") == "stop_decision")
         .select("run_id", "seq", pl.col("payload").str.json_path_match("$.state.coverage").cast(pl.Float64))
         .collect())
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_args

import numpy as np
import polars as pl

from trajectories.events import DECISION_TYPES, Event
from trajectories.runfile import RunFileError, decompress_run_bytes, parse_run_bytes

MANIFEST = "manifest.json"
STORE_FORMAT = "citeloop-store"
STORE_VERSION = 1
TABLES = ("runs", "events", "blobs", "decisions", "tool_calls", "claims")
RUN_TABLES = tuple(t for t in TABLES if t != "blobs")
"""Tables whose rows belong to one run (blobs are shared by digest)."""

EVENT_TYPES: frozenset[str] = frozenset(cls.model_fields["type"].default for cls in get_args(Event))
RUN_SUFFIXES = (".jsonl", ".jsonl.zst")
CHUNK_BYTES = 192 << 20
"""Decompressed run-file bytes per ingest chunk (one Parquet part per table)."""

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

# What the bulk JSON pass pulls out of every event line; keys absent from a line are null.
_PARSE_SCHEMA: dict[str, pl.DataType] = {
    "run_id": pl.String(), "seq": pl.Int64(), "parent_seq": pl.Int64(), "subq": pl.String(), "type": pl.String(),
    "policy": pl.Struct({"name": pl.String(), "version": pl.String()}),
    "candidates": pl.List(pl.String()), "reason": pl.String(), "state": pl.Struct({"round": pl.Int64()}),
    "round": pl.Int64(), "angle": pl.String(), "query": pl.String(),
    "response": pl.Struct({"status": pl.String(), "hits": pl.List(pl.Struct({"rank": pl.Int64()}))}),
    "attempts": pl.List(pl.String()), "doc_id": pl.String(), "status": pl.String(),
    "digest": pl.String(), "text": pl.String(),
    "claim": pl.Struct({"claim_id": pl.String(), "text": pl.String(), "card_ids": pl.List(pl.String())}),
    "record": pl.Struct({"claim_id": pl.String(), "verdict": pl.String(), "checker": pl.String(),
                         "support": pl.Float64()}),
    "claim_id": pl.String(), "new_text": pl.String(), "verdict": pl.String(), "wall_ms": pl.Float64(),
}
# The fields every event line starts with, in the order pydantic writes them; stripped from
# the payload. Lines written in another key order fall back to json.loads (`_payload_slow`).
_BASE_PREFIX = (
    r'^\{"run_id":"(?:[^"\\]|\\.)*","seq":-?\d+,"parent_seq":(?:null|-?\d+),'
    r'"subq":(?:null|"(?:[^"\\]|\\.)*"),"type":"[a-z_]+",?'
)
_BASE_KEYS = ("run_id", "seq", "parent_seq", "subq", "type")
_SCHEMA_VERSION = re.compile(rb'"schema_version":\s*(\d+)')
# A decision's `choice` as pydantic writes it: an index, `continue`/`stop`, or a list of ids.
# Inside JSON strings every quote is escaped, so `"choice":` can only be a key (no event
# nests another `choice` key). A value of any other shape falls back to JSONPath.
_JSON_STR = r'"(?:[^"\\\x00-\x1f]|\\.)*"'
_CHOICE = rf'"choice":(-?\d+|{_JSON_STR}|\[\]|\[{_JSON_STR}(?:,{_JSON_STR})*\])[,}}]'



class StoreError(ValueError):
    """The store or the input cannot be used (missing, not a store, no run files)."""


# --------------------------------------------------------------------------- loading files


@dataclass
class _Loaded:
    """One run file, read and split: its header and the event lines the store will keep."""

    path: Path
    digest: str
    file_bytes: int
    data: bytes
    """Decompressed bytes."""
    stream_problem: str | None
    header: Any
    schema_version: int | None
    body: bytes = b""
    """Complete event lines, each ending in a newline."""
    n_lines: int = 0
    problem: str | None = None

    @property
    def run_id(self) -> str:
        return self.header.run_id


def _load(path: Path, raw: bytes, digest: str) -> _Loaded:
    """Validate the header and split off the event lines, cutting a torn last line."""
    data, stream_problem = decompress_run_bytes(raw, compressed=path.suffix == ".zst")
    nl = data.find(b"\n")
    head = data if nl < 0 else data[: nl + 1]
    header = parse_run_bytes(head, path, stream_problem=stream_problem if nl < 0 else None).header
    # The version as written (the header model migrates it to the current one).
    found = _SCHEMA_VERSION.search(head)
    version = int(found.group(1)) if found else None
    loaded = _Loaded(path, digest, len(raw), data, stream_problem, header, version)
    if nl < 0:
        loaded.problem = stream_problem
        return loaded
    # A torn tail (no final newline) is cut here; blank or bad lines further up make the bulk
    # parse fail or disagree on the line count, and send the file to the exact reader.
    end = data.rfind(b"\n") + 1
    loaded.body = data[nl + 1 : end]
    loaded.n_lines = loaded.body.count(b"\n")
    loaded.problem = "incomplete last line" if data[end:].strip() else stream_problem
    return loaded


def _exact_cut(loaded: _Loaded) -> None:
    """Cut the body where the full reader (pydantic-validated) stops; take its problem text."""
    run = parse_run_bytes(loaded.data, loaded.path, stream_problem=loaded.stream_problem)
    n = len(run.events)
    nl = loaded.data.find(b"\n")
    body = loaded.data[nl + 1 :] if nl >= 0 else b""
    end = 0
    for _ in range(n):
        end = body.index(b"\n", end) + 1
    loaded.body, loaded.n_lines, loaded.problem = body[:end], n, run.problem


def _parse_lines(body: bytes, n_lines: int) -> pl.DataFrame:
    """Event lines -> the parsed fields of `_PARSE_SCHEMA` plus `line` (the raw JSON text)."""
    if n_lines == 0:
        return pl.DataFrame(schema=_PARSE_SCHEMA | {"line": pl.String()})
    parsed = pl.read_ndjson(body, schema=_PARSE_SCHEMA)
    try:
        lines = pl.read_csv(io.BytesIO(body), has_header=False, separator="\x1f", quote_char=None,
                            schema={"line": pl.String()})["line"]
    except pl.exceptions.PolarsError:
        lines = None
    if lines is None or lines.len() != n_lines:
        lines = pl.Series("line", body.decode("utf-8").split("\n")[:-1], dtype=pl.String())
    if parsed.height != n_lines:
        raise pl.exceptions.ComputeError(f"{parsed.height} events parsed from {n_lines} lines")
    return parsed.with_columns(lines)


def _unparseable(files: list[_Loaded], lo: int, hi: int) -> set[int]:
    """Indexes in [lo, hi) of files whose lines the bulk parse refuses (by halving)."""
    try:
        _parse_lines(b"".join(f.body for f in files[lo:hi]), sum(f.n_lines for f in files[lo:hi]))
        return set()
    except (pl.exceptions.PolarsError, UnicodeDecodeError):
        if hi - lo == 1:
            return {lo}
    mid = (lo + hi) // 2
    return _unparseable(files, lo, mid) | _unparseable(files, mid, hi)


def _try_parse(files: list[_Loaded]) -> tuple[pl.DataFrame | None, set[int]]:
    """Bulk-parse the files' event lines; the indexes of files with a line the checks refuse."""
    try:
        frame = _parse_lines(b"".join(f.body for f in files), sum(f.n_lines for f in files))
    except (pl.exceptions.PolarsError, UnicodeDecodeError):
        return None, _unparseable(files, 0, len(files))
    if not files:
        return frame.with_columns(file=pl.lit(None, pl.Int32)), set()
    counts = np.array([f.n_lines for f in files], dtype=np.int64)
    starts = np.repeat(np.cumsum(counts) - counts, counts)
    frame = frame.with_columns(
        file=pl.Series(np.repeat(np.arange(len(files), dtype=np.int32), counts)),
        idx=pl.Series(np.arange(int(counts.sum()), dtype=np.int64) - starts),
    )
    run_ids = pl.Series([f.run_id for f in files], dtype=pl.String())
    frame = frame.with_columns(expected_run=run_ids.gather(frame["file"]))
    bad = frame.filter(
        (pl.col("run_id") != pl.col("expected_run")).fill_null(True)
        | (pl.col("seq") != pl.col("idx")).fill_null(True)
        | ~pl.col("type").is_in(sorted(EVENT_TYPES)).fill_null(False)
    )
    return frame.drop("expected_run", "idx"), set(bad["file"].unique().to_list())


def _checked(files: list[_Loaded], validate: bool
             ) -> tuple[list[_Loaded], pl.DataFrame, list[tuple[_Loaded, str]]]:
    """Parse the event lines of `files` in bulk; files that fail go through the exact reader.

    Returns the files kept, one frame of their events (column `file` indexes the kept list)
    and (file, reason) for files that could not be stored at all.
    """
    skipped: list[tuple[_Loaded, str]] = []
    exact: set[int] = set()
    for f in files:
        if validate or f.problem:
            _exact_cut(f)
            exact.add(id(f))
    while True:
        frame, suspects = _try_parse(files)
        if frame is not None and not suspects:
            return files, frame, skipped
        if not suspects:  # pragma: no cover - each file parses alone but not together
            raise StoreError("internal error: the bulk parse fails on no single file")
        kept = []
        for i, f in enumerate(files):
            if i not in suspects:
                kept.append(f)
            elif id(f) not in exact:
                _exact_cut(f)
                exact.add(id(f))
                kept.append(f)
            else:  # the reader takes these lines, the bulk parse does not (e.g. "seq": "3")
                skipped.append((f, "its events pass the reader but not the store's bulk JSON parse"))
        files = kept


# --------------------------------------------------------------------------- building tables


def _payload_slow(line: str) -> str:
    data = json.loads(line)
    if data.get("type") == "text_blob":  # the text lives in `blobs`
        data.pop("text", None)
    for key in _BASE_KEYS:
        data.pop(key, None)
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


def _events_table(ev: pl.DataFrame) -> pl.DataFrame:
    blob = pl.col("type") == "text_blob"
    table = ev.select("run_id", "seq", "parent_seq", "subq", "type", "line", "digest",
                      stripped=pl.col("line").str.replace(_BASE_PREFIX, "{"))
    table = table.select(
        "run_id", "seq", "parent_seq", "subq", "type", "line",
        payload=pl.when(blob).then(pl.concat_str(pl.lit('{"digest":"'), pl.col("digest"), pl.lit('"}')))
        .otherwise(pl.col("stripped")),
        # Rows the fast path cannot do: another key order (nothing was stripped), or a digest
        # that is not plain hex (quoting it would need escapes).
        slow=pl.when(blob).then(~pl.col("digest").str.contains(r"^[0-9a-f]*$"))
        .otherwise(pl.col("line").str.len_bytes() == pl.col("stripped").str.len_bytes()),
    )
    slow = table["slow"]
    if slow.any():
        fixed = [_payload_slow(line) for line in table.filter(slow)["line"].to_list()]
        table = table.with_columns(
            payload=pl.when(slow).then(pl.Series(_scatter(slow, fixed), dtype=pl.String()))
            .otherwise(pl.col("payload"))
        )
    return table.drop("line", "slow")


def _scatter(mask: pl.Series, values: list[str]) -> list[str | None]:
    out: list[str | None] = [None] * mask.len()
    for i, v in zip(np.flatnonzero(mask.to_numpy()), values):
        out[int(i)] = v
    return out


def _with_round(ev: pl.DataFrame) -> pl.DataFrame:
    """The search round of each event: recorded on angle/stop decisions and queries, carried forward."""
    src = (
        pl.when(pl.col("type").is_in(["angle_decision", "stop_decision"]))
        .then(pl.col("state").struct.field("round"))
        .when(pl.col("type") == "query_issued").then(pl.col("round"))
    )
    # One forward fill over all files, kept only where the value came from the same file.
    ev = ev.with_columns(_round_src=src, _round_file=pl.when(src.is_not_null()).then(pl.col("file")))
    return ev.with_columns(
        event_round=pl.when(pl.col("_round_file").forward_fill() == pl.col("file"))
        .then(pl.col("_round_src").forward_fill())
    ).drop("_round_src", "_round_file")


def _decisions_table(ev: pl.DataFrame) -> pl.DataFrame:
    dec = ev.filter(pl.col("type").is_in(sorted(DECISION_TYPES)))
    dec = dec.with_columns(choice=pl.col("line").str.extract(_CHOICE, 1))
    missed = dec["choice"].is_null()
    if missed.any():
        path = pl.col("line").str.json_path_match("$.choice")
        # JSONPath gives a string scalar bare; the stop choice is `continue` or `stop`.
        quoted = pl.concat_str(pl.lit('"'), path.str.replace_all("\\", "\\\\", literal=True)
                               .str.replace_all('"', '\\"', literal=True), pl.lit('"'))
        dec = dec.with_columns(choice=pl.when(pl.col("choice").is_not_null()).then(pl.col("choice"))
                               .when(pl.col("type") == "stop_decision").then(quoted).otherwise(path))
    return dec.select(
        "run_id", "seq", "parent_seq", "subq",
        kind=pl.col("type").str.strip_suffix("_decision"),
        policy=pl.col("policy").struct.field("name"), policy_version=pl.col("policy").struct.field("version"),
        choice="choice",
        n_candidates=pl.col("candidates").list.len().cast(pl.Int32), reason="reason",
        round="event_round",
    )


def _tool_calls_table(ev: pl.DataFrame) -> pl.DataFrame:
    calls = ev.filter(pl.col("type").is_in(["search_result", "document_read"]))
    queries = ev.filter(pl.col("type") == "query_issued").select("file", parent_seq="seq", angle="angle")
    search = pl.col("type") == "search_result"
    return calls.drop("angle").join(queries, on=["file", "parent_seq"], how="left").select(
        "run_id", "seq", "parent_seq", "subq",
        tool=pl.when(search).then(pl.lit("search")).otherwise(pl.lit("read")),
        query=pl.when(search).then(pl.col("query")),
        angle=pl.when(search).then(pl.col("angle")),
        doc_id=pl.when(~search).then(pl.col("doc_id")),
        status=pl.when(search).then(pl.col("response").struct.field("status")).otherwise(pl.col("status")),
        attempts=pl.col("attempts").list.len().cast(pl.Int32),
        attempt_statuses="attempts",
        n_hits=pl.when(search).then(pl.col("response").struct.field("hits").list.len()).cast(pl.Int32),
        round="event_round",
    )


def _claims_table(ev: pl.DataFrame) -> pl.DataFrame:
    drafted = ev.filter(pl.col("type") == "claim_drafted").select(
        "file", "run_id", claim_id=pl.col("claim").struct.field("claim_id"), seq="seq",
        subq="subq", text=pl.col("claim").struct.field("text"), card_ids=pl.col("claim").struct.field("card_ids"),
    ).unique(["file", "claim_id"], keep="first", maintain_order=True)
    record = pl.col("record").struct
    checks = ev.filter(pl.col("type") == "verdict").group_by("file", claim_id=record.field("claim_id")).agg(
        verdict=record.field("verdict").sort_by("seq").last(),
        checker=record.field("checker").sort_by("seq").last(),
        support=record.field("support").sort_by("seq").last(),
        n_checks=pl.len().cast(pl.Int32),
    )
    rewrites = ev.filter(pl.col("type") == "rewrite").group_by("file", "claim_id").agg(
        rewritten_text=pl.col("new_text").sort_by("seq").last())
    drops = ev.filter(pl.col("type") == "drop").group_by("file", "claim_id").agg(
        drop_reason=pl.col("reason").sort_by("seq").last())
    claims = (drafted.join(checks, on=["file", "claim_id"], how="left")
              .join(rewrites, on=["file", "claim_id"], how="left")
              .join(drops, on=["file", "claim_id"], how="left"))
    rewritten = pl.col("rewritten_text").is_not_null()
    dropped = pl.col("drop_reason").is_not_null()
    return claims.select(
        "run_id", "claim_id", "seq", "subq", "text",
        final_text=pl.coalesce("rewritten_text", "text"), card_ids="card_ids",
        verdict="verdict", checker="checker", support="support",
        n_checks=pl.col("n_checks").fill_null(0), rewritten=rewritten, weakened=rewritten & ~dropped,
        dropped=dropped, drop_reason="drop_reason",
    )


def _policy_name(policies: dict[str, Any]) -> str:
    if set(policies) == {"spec"}:
        return policies["spec"].name
    return ",".join(f"{kind}={ref.name}" for kind, ref in sorted(policies.items()))


def _runs_table(files: list[_Loaded], ev: pl.DataFrame, part: int) -> pl.DataFrame:
    finished = dict(ev.filter(pl.col("type") == "run_finished").select("file", "line").iter_rows())
    walls = dict(ev.filter(pl.col("type") == "run_meta").select("file", "wall_ms").iter_rows())
    rows = []
    for i, f in enumerate(files):
        spec = f.header.spec
        branch = getattr(spec, "branch", None)
        outcome = json.loads(finished[i]).get("outcome", {}) if i in finished else {}
        row = {
            "run_id": f.run_id, "question": spec.question, "seed": spec.seed,
            "policy": _policy_name(spec.policies),
            "policies": json.dumps({k: v.name for k, v in sorted(spec.policies.items())}, separators=(",", ":")),
            "planner": spec.planner.name, "planner_version": spec.planner.version,
            "verifier": spec.verifier.name, "verifier_version": spec.verifier.version,
            "search_tool": spec.tools["search"].name if "search" in spec.tools else None,
            "read_tool": spec.tools["read"].name if "read" in spec.tools else None,
            "corpus_fingerprint": spec.corpus_fingerprint, "corpus_source": spec.corpus_source,
            "config_digest": spec.config_digest, "schema_version": f.schema_version,
            "parent_run_id": branch.parent_run_id if branch else None,
            "branch_seq": branch.branch_seq if branch else None,
            "n_events": f.n_lines, "finished": i in finished, "torn": f.problem is not None,
            "problem": f.problem, "status": outcome.get("status"), "stop_reason": outcome.get("stop_reason"),
            "wall_ms": walls.get(i), "file": str(f.path), "file_digest": f.digest, "file_bytes": f.file_bytes,
            "jsonl_bytes": len(f.data), "part": part,
        }
        row.update({f"count_{k}": v for k, v in sorted(outcome.get("counts", {}).items())})
        row.update({f"metric_{k}": v for k, v in sorted(outcome.get("metrics", {}).items())})
        rows.append(row)
    extra = sorted({k for r in rows for k in r} - set(TABLE_SCHEMAS["runs"]))
    schema = TABLE_SCHEMAS["runs"] | {k: pl.Int64() if k.startswith("count_") else pl.Float64() for k in extra}
    return pl.DataFrame(rows, schema=schema)


def build_tables(files: list[_Loaded], ev: pl.DataFrame, part: int) -> dict[str, pl.DataFrame]:
    ev = _with_round(ev)
    blobs = ev.filter(pl.col("type") == "text_blob").select("digest", "text").unique("digest", keep="first")
    tables = {
        "runs": _runs_table(files, ev, part),
        "events": _events_table(ev),
        "blobs": blobs,
        "decisions": _decisions_table(ev),
        "tool_calls": _tool_calls_table(ev),
        "claims": _claims_table(ev),
    }
    return tables  # rows come in file order, each run's in seq order


# --------------------------------------------------------------------------- the store


@dataclass
class IngestReport:
    files_seen: int = 0
    files_unchanged: int = 0
    runs_added: int = 0
    runs_replaced: int = 0
    runs_torn: int = 0
    events: int = 0
    jsonl_bytes: int = 0
    parts: list[int] = field(default_factory=list)
    duplicates: list[str] = field(default_factory=list)
    """Files not stored because another file of the same run was preferred."""
    skipped: list[tuple[str, str]] = field(default_factory=list)
    """(file, reason) for files that could not be read."""
    seconds: float = 0.0
    stage_seconds: dict[str, float] = field(
        default_factory=lambda: dict.fromkeys(("read", "parse", "tables", "write"), 0.0))
    """Where the time went: reading files and headers, the bulk parse, building tables, writing Parquet."""

    def _add(self, stage: str, since: float) -> float:
        now = time.perf_counter()
        self.stage_seconds[stage] = round(self.stage_seconds[stage] + now - since, 4)
        return now

    def to_dict(self) -> dict[str, Any]:
        out = dict(self.__dict__)
        out["skipped"] = [{"file": f, "reason": r} for f, r in self.skipped]
        out["events_per_s"] = round(self.events / self.seconds) if self.seconds else None
        return out


def run_files(source: Path) -> list[Path]:
    """Run files under a directory (recursive), or the file itself."""
    source = Path(source)
    if source.is_file():
        return [source]
    if not source.is_dir():
        raise StoreError(f"{source}: no such directory")
    found = [p for p in source.rglob("*") if p.is_file() and p.name.endswith(RUN_SUFFIXES)]
    if not found:
        raise StoreError(f"{source}: no run files (*.jsonl, *.jsonl.zst)")
    return sorted(found, key=str)


class Store:
    """A directory of Parquet parts plus `manifest.json`. Open with `open` or `create`."""

    def __init__(self, root: Path, manifest: dict[str, Any]) -> None:
        self.root = Path(root)
        self.manifest = manifest

    # ---------------------------------------------------------------- opening

    @classmethod
    def open(cls, root: str | Path) -> Store:
        root = Path(root)
        if not root.exists():
            raise StoreError(f"{root}: no store here (run `citeloop store ingest RUNS_DIR --store {root}` first)")
        manifest_path = root / MANIFEST
        if not root.is_dir() or not manifest_path.is_file():
            raise StoreError(f"{root}: not a citeloop store (no {MANIFEST})")
        try:
            manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        except (ValueError, OSError) as exc:
            raise StoreError(f"{manifest_path}: unreadable manifest ({exc})") from exc
        if not isinstance(manifest, dict) or manifest.get("format") != STORE_FORMAT:
            raise StoreError(f"{manifest_path}: not a citeloop store manifest")
        if manifest.get("version", 0) > STORE_VERSION:
            raise StoreError(f"{root}: store version {manifest['version']} is newer than this citeloop reads "
                             f"({STORE_VERSION}); upgrade citeloop")
        return cls(root, manifest)

    @classmethod
    def create(cls, root: str | Path) -> Store:
        """Open the store at `root`, making an empty one if `root` is missing or an empty directory."""
        root = Path(root)
        if root.exists() and (not root.is_dir() or any(root.iterdir())):
            return cls.open(root)
        # Nothing is written until the first ingest saves its manifest.
        return cls(root, {"format": STORE_FORMAT, "version": STORE_VERSION, "next_part": 0,
                          "tables": {t: [] for t in TABLES}, "runs": {}, "files": {}})

    # ---------------------------------------------------------------- reading

    def part_path(self, table: str, part: int) -> Path:
        return self.root / table / f"part-{part:05d}.parquet"

    def parts(self, table: str) -> list[Path]:
        if table not in TABLES:
            raise StoreError(f"unknown table {table!r}; tables: {', '.join(TABLES)}")
        return [self.part_path(table, p) for p in self.manifest["tables"].get(table, [])]

    def scan(self, table: str) -> pl.LazyFrame:
        """All rows of `table` as a LazyFrame (only parts the manifest names)."""
        paths = self.parts(table)
        if not paths:
            return pl.LazyFrame(schema=TABLE_SCHEMAS[table])
        schema: dict[str, pl.DataType] = {}
        for p in paths:  # the runs table gains count_/metric_ columns as outcomes evolve
            for name, dtype in pl.read_parquet_schema(p).items():
                schema.setdefault(name, dtype)
        return pl.scan_parquet(paths, schema=schema, missing_columns="insert")

    def read(self, table: str) -> pl.DataFrame:
        return self.scan(table).collect()

    def counts(self) -> dict[str, int]:
        return {t: int(self.scan(t).select(pl.len()).collect().item()) for t in TABLES}

    def size_bytes(self) -> int:
        return sum(p.stat().st_size for t in TABLES for p in self.parts(t))

    # ---------------------------------------------------------------- writing

    def _save_manifest(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        tmp = self.root / (MANIFEST + ".tmp")
        # Compact, so the C encoder writes it: the manifest grows with every run stored.
        tmp.write_text(json.dumps(self.manifest, sort_keys=True, separators=(",", ":")), encoding="utf-8")
        os.replace(tmp, self.root / MANIFEST)

    def write_part(self, table: str, part: int, df: pl.DataFrame) -> None:
        """Write one part atomically and list it in the manifest (saved by the caller)."""
        path = self.part_path(table, part)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".parquet.tmp")
        df.write_parquet(tmp, compression="zstd", statistics=True)
        os.replace(tmp, path)
        listed = self.manifest["tables"].setdefault(table, [])
        if part not in listed:
            listed.append(part)

    def new_part(self) -> int:
        part = self.manifest["next_part"]
        self.manifest["next_part"] = part + 1
        return part

    def _remove_runs(self, run_ids: set[str]) -> None:
        """Delete the rows of these runs from the parts that hold them."""
        by_part: dict[int, list[str]] = {}
        for run_id in run_ids:
            by_part.setdefault(self.manifest["runs"][run_id]["part"], []).append(run_id)
        for part, ids in by_part.items():
            for table in RUN_TABLES:
                path = self.part_path(table, part)
                if part not in self.manifest["tables"].get(table, []) or not path.exists():
                    continue
                df = pl.read_parquet(path)
                kept = df.filter(~pl.col("run_id").is_in(ids))
                if kept.height == df.height:
                    continue
                if kept.height:
                    self.write_part(table, part, kept)
                else:
                    path.unlink()
                    self.manifest["tables"][table].remove(part)

    def _clean_orphans(self) -> None:
        for table in TABLES:
            folder = self.root / table
            if not folder.is_dir():
                continue
            listed = {self.part_path(table, p).name for p in self.manifest["tables"].get(table, [])}
            for p in folder.iterdir():
                if p.name not in listed and (p.suffix in (".parquet", ".tmp")):
                    p.unlink()

    def _known_digests(self) -> set[str]:
        if not self.parts("blobs"):
            return set()
        return set(self.scan("blobs").select("digest").collect()["digest"].to_list())

    def ingest(self, source: str | Path | list[Path], validate: bool = False) -> IngestReport:
        """Add new and changed run files under `source` (a directory, a file, or a list of files)."""
        t0 = time.perf_counter()
        paths = [p for s in ([source] if isinstance(source, (str, Path)) else source) for p in run_files(Path(s))]
        report = IngestReport(files_seen=len(paths))
        self._clean_orphans()
        files_seen = self.manifest["files"]
        chunk: list[_Loaded] = []
        chunk_bytes = 0
        known_blobs: set[str] | None = None
        tick = time.perf_counter()
        for path in paths:
            path = Path(os.path.abspath(path))
            key = str(path)
            raw = path.read_bytes()
            digest = hashlib.sha256(raw).hexdigest()
            if files_seen.get(key, {}).get("digest") == digest:
                report.files_unchanged += 1
                continue
            try:
                loaded = _load(path, raw, digest)
            except RunFileError as exc:
                report.skipped.append((key, str(exc)))
                files_seen[key] = {"digest": digest, "run_id": None, "status": "skipped", "reason": str(exc)}
                continue
            chunk.append(loaded)
            chunk_bytes += len(loaded.data)
            if chunk_bytes >= CHUNK_BYTES:
                report._add("read", tick)
                known_blobs = self._ingest_chunk(chunk, validate, report, known_blobs)
                chunk, chunk_bytes, tick = [], 0, time.perf_counter()
        report._add("read", tick)
        if chunk:
            self._ingest_chunk(chunk, validate, report, known_blobs)
        if report.skipped and not (report.runs_added or report.runs_replaced or report.files_unchanged
                                   or report.duplicates):
            raise StoreError(f"no readable run files among {len(paths)}; e.g. {report.skipped[0][1]}")
        self._save_manifest()
        report.seconds = round(time.perf_counter() - t0, 4)
        return report

    def _ingest_chunk(self, chunk: list[_Loaded], validate: bool, report: IngestReport,
                      known_blobs: set[str] | None) -> set[str]:
        tick = time.perf_counter()
        files, ev, skipped = _checked(chunk, validate)
        tick = report._add("parse", tick)
        for f, reason in skipped:
            report.skipped.append((str(f.path), reason))
            self.manifest["files"][str(f.path)] = {"digest": f.digest, "run_id": None, "status": "skipped",
                                                   "reason": reason}
        # One file per run: the most events, complete before torn, then by path.
        best: dict[str, int] = {}
        for i, f in enumerate(files):
            j = best.get(f.run_id)
            if j is None or (f.problem is not None, -f.n_lines, str(f.path)) < (
                    files[j].problem is not None, -files[j].n_lines, str(files[j].path)):
                best[f.run_id] = i
        keep = sorted(best.values())
        for i, f in enumerate(files):
            status = "ingested" if i in keep else "duplicate"
            self.manifest["files"][str(f.path)] = {"digest": f.digest, "run_id": f.run_id, "status": status}
            if status == "duplicate":
                report.duplicates.append(str(f.path))
        if len(keep) < len(files):
            remap = {old: new for new, old in enumerate(keep)}
            ev = ev.filter(pl.col("file").is_in(keep)).with_columns(
                file=pl.col("file").replace_strict(remap, return_dtype=pl.Int32))
            files = [files[i] for i in keep]
        if not files:
            return known_blobs or set()
        part = self.new_part()
        tables = build_tables(files, ev, part)
        if known_blobs is None:
            known_blobs = self._known_digests()
        tables["blobs"] = tables["blobs"].filter(~pl.col("digest").is_in(list(known_blobs)))
        known_blobs.update(tables["blobs"]["digest"].to_list())
        tick = report._add("tables", tick)
        for table in TABLES:
            if tables[table].height:
                self.write_part(table, part, tables[table])
        replaced = {f.run_id for f in files if f.run_id in self.manifest["runs"]}
        if replaced:
            self._remove_runs(replaced)
        report._add("write", tick)
        for f in files:
            self.manifest["runs"][f.run_id] = {"file": str(f.path), "digest": f.digest, "part": part,
                                               "n_events": f.n_lines, "torn": f.problem is not None}
        report.parts.append(part)
        report.runs_replaced += len(replaced)
        report.runs_added += len(files) - len(replaced)
        report.runs_torn += sum(f.problem is not None for f in files)
        report.events += sum(f.n_lines for f in files)
        report.jsonl_bytes += sum(len(f.data) for f in files)
        return known_blobs


def ingest(source: str | Path, store: str | Path, validate: bool = False) -> IngestReport:
    """`citeloop store ingest`: compact run files under `source` into the store at `store`."""
    source = Path(source)
    run_files(source)  # fail on a bad source before a store directory is made
    return Store.create(store).ingest(source, validate=validate)
