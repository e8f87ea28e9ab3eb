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
ones migrated). A file's event lines are decoded as JSON by msgspec in one call, into
structs holding only the fields the tables need (the rest is skipped but must be well-formed
JSON), and checked for a known `type`, needed fields of the right JSON type, `run_id` and
consecutive `seq`; splitting all lines of a chunk into a polars column checks that they are
UTF-8 and hold one event each. Full pydantic validation of every event runs only for files
that look damaged (a torn tail, a bad line, a broken zstd frame) and, with `validate=True`
(`--validate`), for all files. Either way a torn file is stored up to its last good event
(the same cut `read_run` makes) with `torn=True` and `problem` saying why. Without
`validate`, a line that is well-formed JSON of the right run, type and seq but not a valid
event (a renamed field, a bad enum value) is stored as is. Event payloads are the lines
as written, less the leading `run_id, seq, parent_seq, subq, type` fields (kept in the shape
their schema version wrote; `runs.schema_version` says which).

Speed. One thread reads and hashes files ahead, one decodes them, batch by batch
(`BATCH_BYTES`), and a third builds each batch's rows and writes each chunk's part
(`CHUNK_BYTES`) meanwhile: the work in polars, hashlib and file reads runs without the GIL.
Cyclic garbage collection is paused during an ingest.

Typical queries (functions in `trajectories.store_queries`, used by `citeloop store stats`)::

    import polars as pl
    from citeloop.trajectories.store import Store
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

import gc
import hashlib
import json
import os
import re
import time
from collections import deque
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Union, get_args

import msgspec
import numpy as np
import polars as pl

from citeloop.trajectories.events import DECISION_TYPES, Event
from citeloop.trajectories.header import RunHeader
from citeloop.trajectories.runfile import RunFileError, decompress_run_bytes, parse_run_bytes

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
BATCH_BYTES = 16 << 20
"""Decompressed run-file bytes per batch: a second thread builds the rows of one batch while
the next is read."""
FETCH_BATCH = 32
"""Files read ahead (by a second thread) while the files before them are decoded."""

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


class StoreError(ValueError):
    """The store or the input cannot be used (missing, not a store, no run files)."""


# --------------------------------------------------------------------------- decoding event lines
#
# All event lines of a file are decoded in one msgspec call, each into a small struct with
# only the fields the tables need: the other fields are skipped (still checked to be
# well-formed JSON) and a missing field is None. The union is tagged by `type`, so a line of
# an unknown type fails, and so does a field of the wrong JSON type.


class _Policy(msgspec.Struct, gc=False):
    name: str | None = None
    version: str | None = None


class _RoundState(msgspec.Struct, gc=False):
    round: int | None = None


class _Response(msgspec.Struct, gc=False):
    status: str | None = None
    hits: list[msgspec.Raw] | None = None


class _Claim(msgspec.Struct, gc=False):
    claim_id: str | None = None
    text: str | None = None
    card_ids: list[str] | None = None


class _Record(msgspec.Struct, gc=False):
    claim_id: str | None = None
    verdict: str | None = None
    checker: str | None = None
    support: float | None = None


class _Outcome(msgspec.Struct, gc=False):
    status: str | None = None
    stop_reason: str | None = None
    counts: dict[str, int] | None = None
    metrics: dict[str, float | None] | None = None


_Str = str | None
_BASE_FIELDS: list[tuple[str, Any, Any]] = [
    ("run_id", _Str, None), ("seq", int | None, None), ("parent_seq", int | None, None), ("subq", _Str, None),
]
_DECISION_FIELDS: list[tuple[str, Any, Any]] = [
    ("candidates", list[msgspec.Raw] | None, None), ("choice", msgspec.Raw, msgspec.Raw(b"")),
    ("policy", _Policy | None, None), ("reason", _Str, None),
]
_ROUND_STATE: list[tuple[str, Any, Any]] = [("state", _RoundState | None, None)]
_FIELDS: dict[str, list[tuple[str, Any, Any]]] = {
    "angle_decision": _ROUND_STATE + _DECISION_FIELDS,
    "stop_decision": _ROUND_STATE + _DECISION_FIELDS,
    "read_decision": _DECISION_FIELDS,
    "keep_decision": _DECISION_FIELDS,
    "query_issued": [("query", _Str, None), ("angle", _Str, None), ("round", int | None, None)],
    "search_result": [("query", _Str, None), ("response", _Response | None, None),
                      ("attempts", list[str] | None, None)],
    "document_read": [("doc_id", _Str, None), ("status", _Str, None), ("attempts", list[str] | None, None)],
    "text_blob": [("digest", _Str, None), ("text", _Str, None)],
    "claim_drafted": [("claim", _Claim | None, None)],
    "verdict": [("record", _Record | None, None)],
    "rewrite": [("claim_id", _Str, None), ("new_text", _Str, None)],
    "drop": [("claim_id", _Str, None), ("reason", _Str, None)],
    "run_finished": [("outcome", _Outcome | None, None)],
    "run_meta": [("wall_ms", float | None, None)],
}
_LINE_TYPES: dict[type, str] = {
    msgspec.defstruct(f"_{name}", _BASE_FIELDS + _FIELDS.get(name, []), tag=name, tag_field="type",
                      gc=False): name
    for name in sorted(EVENT_TYPES)
}
_LINES_DECODER = msgspec.json.Decoder(list[Union[tuple(_LINE_TYPES)]])  # noqa: UP007 - a runtime union
_LINE_ERRORS = (msgspec.DecodeError, msgspec.ValidationError)
_PLAIN = EVENT_TYPES - set(_FIELDS)
"""Event types that only give `events` rows."""
_KINDS = {t: t.removesuffix("_decision") for t in DECISION_TYPES}
_ROUND_DECISIONS = frozenset({"angle_decision", "stop_decision"})
_BASE_KEYS = ("run_id", "seq", "parent_seq", "subq", "type")
# The fields every event line starts with, in the order pydantic writes them; stripped from
# the payload. Lines written in another key order fall back to json.loads (`_payload_slow`).
_BASE_PREFIX = (
    r'^\{"run_id":"(?:[^"\\]|\\.)*","seq":-?\d+,"parent_seq":(?:null|-?\d+),'
    r'"subq":(?:null|"(?:[^"\\]|\\.)*"),"type":"[a-z_]+",?'
)
_HEX = re.compile(r"[0-9a-f]*")
_JSON_SPACE = re.compile(rb"[ \t\r\n]")
_SCHEMA_VERSION = re.compile(rb'"schema_version":\s*(\d+)')


def _payload_slow(line: str) -> str:
    """The payload of a line not written in pydantic's key order: parse, drop, re-serialise."""
    data = json.loads(line)
    if data.get("type") == "text_blob":  # the text lives in `blobs`
        data.pop("text", None)
    for key in _BASE_KEYS:
        data.pop(key, None)
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


def _choice_text(raw: msgspec.Raw) -> str | None:
    """A decision's `choice` as compact JSON text: as written, unless it has spaces."""
    text = bytes(raw)
    if not text or text == b"null":
        return None
    if _JSON_SPACE.search(text):
        return json.dumps(json.loads(text), separators=(",", ":"), ensure_ascii=False)
    return text.decode("utf-8")


# --------------------------------------------------------------------------- reading one file


@dataclass(slots=True)
class _File:
    """One run file, read and checked: its event lines, and the rows of the other tables."""

    path: str
    digest: str
    raw: bytes
    """The file's bytes, as read (dropped once its rows are built)."""
    file_bytes: int
    jsonl_bytes: int
    """Decompressed bytes."""
    run_id: str
    schema_version: int | None
    run_row: dict[str, Any]
    """Header facts of the `runs` row."""
    problem: str | None = None
    n_events: int = 0
    body: bytes | memoryview = b""
    """The events kept: complete lines, each ending in a newline (dropped with `raw`)."""
    parent_seq: list[int | None] = field(default_factory=list)
    subq: list[str | None] = field(default_factory=list)
    type: list[str] = field(default_factory=list)
    blob_payloads: list[tuple[int, str | None]] = field(default_factory=list)
    """(seq, payload) of `text_blob` lines (None: the payload is worked out from the line)."""
    blobs: dict[str, str | None] = field(default_factory=dict)
    decisions: list[tuple[Any, ...]] = field(default_factory=list)
    tool_calls: list[tuple[Any, ...]] = field(default_factory=list)
    claims: list[tuple[Any, ...]] = field(default_factory=list)
    finished: bool = False
    outcome: _Outcome | None = None
    wall_ms: float | None = None


@dataclass(slots=True)
class _Read:
    """What reading one file gave: `file`, or else unchanged (`reason` None) or unreadable."""

    digest: str
    file: _File | None = None
    reason: str | None = None


def _policy_name(policies: dict[str, Any]) -> str:
    if set(policies) == {"spec"}:
        return policies["spec"].name
    return ",".join(f"{kind}={ref.name}" for kind, ref in sorted(policies.items()))


def _header(head: bytes, path: Path, stream_problem: str | None) -> RunHeader:
    """Line 1, validated (and migrated) by `RunHeader`; errors exactly as `parse_run_bytes` words them."""
    try:
        data = msgspec.json.decode(head)
        if isinstance(data, dict) and data.get("type") == "run_header":
            return RunHeader.model_validate(data)
    except (ValueError, msgspec.DecodeError):  # pydantic's ValidationError is a ValueError
        pass
    return parse_run_bytes(head, path, stream_problem=stream_problem).header  # raises RunFileError


def _header_row(header: RunHeader) -> dict[str, Any]:
    spec = header.spec
    branch = getattr(spec, "branch", None)
    return {
        "run_id": header.run_id, "question": spec.question, "seed": spec.seed,
        "policy": _policy_name(spec.policies),
        "policies": json.dumps({k: v.name for k, v in sorted(spec.policies.items())}, separators=(",", ":")),
        "planner": spec.planner.name, "planner_version": spec.planner.version,
        "verifier": spec.verifier.name, "verifier_version": spec.verifier.version,
        "search_tool": spec.tools["search"].name if "search" in spec.tools else None,
        "read_tool": spec.tools["read"].name if "read" in spec.tools else None,
        "corpus_fingerprint": spec.corpus_fingerprint, "corpus_source": spec.corpus_source,
        "config_digest": spec.config_digest,
        "parent_run_id": branch.parent_run_id if branch else None,
        "branch_seq": branch.branch_seq if branch else None,
    }


def _read_file(key: str, raw: bytes, digest: str, known_digest: str | None, exact: bool) -> _Read:
    """Check one run file (its bytes `raw`) and decode its events.

    The header is always validated. Event lines get the fast decode (`_fill`); a file it
    refuses, a torn file, and with `exact` every file, goes through the exact reader
    (pydantic on every event), which says where the good events end and why.
    """
    path = Path(key)
    if known_digest == digest:
        return _Read(digest)
    try:
        data, stream_problem = decompress_run_bytes(raw, compressed=key.endswith(".zst"))
        nl = data.find(b"\n")
        head = data if nl < 0 else data[: nl + 1]
        header = _header(head, path, stream_problem if nl < 0 else None)
    except RunFileError as exc:
        return _Read(digest, reason=str(exc))
    found = _SCHEMA_VERSION.search(head)  # the version as written (the header model migrates it)
    f = _File(key, digest, raw, len(raw), len(data), header.run_id, int(found.group(1)) if found else None,
              _header_row(header))
    if nl < 0:
        f.problem = stream_problem
        return _Read(digest, f)
    # A torn tail (no final newline) is cut here.
    end = data.rfind(b"\n") + 1
    f.problem = "incomplete last line" if data[end:].strip() else stream_problem
    if exact or f.problem or not _fill(f, data[nl + 1 : end], exact=False):
        run = parse_run_bytes(data, path, stream_problem=stream_problem)
        end = nl + 1
        for _ in range(len(run.events)):
            end = data.index(b"\n", end) + 1
        f.problem = run.problem  # `_fill` changes nothing before it fails
        if not _fill(f, data[nl + 1 : end], exact=True):  # the reader takes these lines, the fast decode not
            return _Read(digest, reason="its events pass the reader but not the store's fast JSON decode")
    f.body = memoryview(data)[nl + 1 : end]
    return _Read(digest, f)


def _fill(f: _File, body: bytes, exact: bool) -> bool:
    """Decode the event lines `body` into `f`'s rows; False if a line is not JSON, not an
    object of a known event type, has a needed field of the wrong type, or is not of this
    run and seq.

    Two more checks, that the bytes are UTF-8 (msgspec checks the strings it decodes, not
    those it skips) and that no line holds two events, come with the bulk split of all
    files' lines (`Store._batch_lines`), which runs them file by file when the bulk fails;
    `exact` runs them here.
    """
    if not body:
        return True
    try:
        # The lines as one JSON array, decoded in one call: no JSON text holds a raw newline,
        # and a blank line leaves two commas in a row, which fails.
        events = _LINES_DECODER.decode(b"[" + body[:-1].replace(b"\n", b",") + b"]")
        if exact:
            body.decode("utf-8")
    except (UnicodeDecodeError, *_LINE_ERRORS):
        return False
    n = len(events)
    run_id = f.run_id
    if (exact and body.count(b"\n") != n) or [e.seq for e in events] != list(range(n)) or any(
            e.run_id != run_id for e in events):
        return False
    kinds = _LINE_TYPES
    types = [kinds[type(e)] for e in events]
    f.n_events, f.type = n, types
    f.parent_seq = [e.parent_seq for e in events]
    f.subq = [e.subq for e in events]
    blobs, blob_payloads, decisions, calls = f.blobs, f.blob_payloads, f.decisions, f.tool_calls
    angles: dict[int, str | None] = {}
    drafted: dict[str | None, tuple[Any, ...]] = {}
    checks: dict[str, tuple[Any, Any, Any, int]] = {}
    rewrites: dict[str, str | None] = {}
    drops: dict[str, str | None] = {}
    round_ = None  # the search round: set by angle/stop decisions and queries, carried forward
    encode = msgspec.json.encode
    for seq, ev, t in zip(range(n), events, types):
        if t in _PLAIN:
            continue
        if t in _KINDS:
            if t in _ROUND_DECISIONS and ev.state is not None and ev.state.round is not None:
                round_ = ev.state.round
            policy = ev.policy
            decisions.append((run_id, seq, ev.parent_seq, ev.subq, _KINDS[t], policy and policy.name,
                              policy and policy.version, _choice_text(ev.choice),
                              None if ev.candidates is None else len(ev.candidates), ev.reason, round_))
        elif t == "text_blob":
            digest = ev.digest
            blob_payloads.append((seq, '{"digest":"' + digest + '"}'
                                  if digest is not None and _HEX.fullmatch(digest) else None))
            if digest is not None and digest not in blobs:
                blobs[digest] = ev.text
        elif t == "document_read":
            attempts = ev.attempts
            calls.append((run_id, seq, ev.parent_seq, ev.subq, "read", None, None, ev.doc_id, ev.status,
                          None if attempts is None else len(attempts),
                          None if attempts is None else encode(attempts).decode(), None, round_))
        elif t == "search_result":
            response, attempts = ev.response, ev.attempts
            calls.append((run_id, seq, ev.parent_seq, ev.subq, "search", ev.query, None, None,
                          response and response.status, None if attempts is None else len(attempts),
                          None if attempts is None else encode(attempts).decode(),
                          None if response is None or response.hits is None else len(response.hits), round_))
        elif t == "query_issued":
            if ev.round is not None:
                round_ = ev.round
            angles[seq] = ev.angle
        elif t == "claim_drafted":
            claim = ev.claim
            cid = claim and claim.claim_id
            if cid not in drafted:
                drafted[cid] = (seq, ev.subq, claim and claim.text,
                                None if claim is None or claim.card_ids is None else encode(claim.card_ids).decode())
        elif t == "verdict":
            record = ev.record
            if record is not None and record.claim_id is not None:
                n_checks = checks[record.claim_id][3] if record.claim_id in checks else 0
                checks[record.claim_id] = (record.verdict, record.checker, record.support, n_checks + 1)
        elif t == "rewrite":
            if ev.claim_id is not None:
                rewrites[ev.claim_id] = ev.new_text
        elif t == "drop":
            if ev.claim_id is not None:
                drops[ev.claim_id] = ev.reason
        elif t == "run_finished":
            f.finished, f.outcome = True, ev.outcome
        elif t == "run_meta":
            f.wall_ms = ev.wall_ms
    # A search's angle is that of the query it answers (its parent), wherever that is in the file.
    if angles:
        f.tool_calls = [c[:6] + (angles.get(c[2]),) + c[7:] if c[4] == "search" else c for c in calls]
    # Claims: each drafted claim once (its first draft), with its last check, rewrite and drop.
    for cid, (seq, sq, text, card_ids) in drafted.items():
        verdict, checker, support, n_checks = checks.get(cid, (None, None, None, 0))
        new_text, reason = rewrites.get(cid), drops.get(cid)
        rewritten, dropped = new_text is not None, reason is not None
        f.claims.append((run_id, cid, seq, sq, text, new_text if rewritten else text, card_ids, verdict, checker,
                         support, n_checks, rewritten, rewritten and not dropped, dropped, reason))
    return True


def _fetch(keys: list[str]) -> list[tuple[bytes, str]]:
    """The bytes and sha256 of each file (reading and hashing run without the GIL)."""
    out = []
    for key in keys:
        with open(key, "rb") as handle:
            raw = handle.read()
        out.append((raw, hashlib.sha256(raw).hexdigest()))
    return out


def _read_all(tasks: list[tuple[str, str | None]], exact: bool) -> Iterator[tuple[str, _Read]]:
    """(path, what reading it gave) for every (path, digest stored for it). A thread reads
    and hashes the next batch of files while this one decodes a batch."""
    batches = [tasks[i : i + FETCH_BATCH] for i in range(0, len(tasks), FETCH_BATCH)]
    with ThreadPoolExecutor(1, thread_name_prefix="citeloop-fetch") as fetcher:
        ahead = fetcher.submit(_fetch, [key for key, _ in batches[0]]) if batches else None
        for i, batch in enumerate(batches):
            fetched = ahead.result()
            if i + 1 < len(batches):
                ahead = fetcher.submit(_fetch, [key for key, _ in batches[i + 1]])
            for (key, known), (raw, digest) in zip(batch, fetched):
                yield key, _read_file(key, raw, digest, known, exact)


# --------------------------------------------------------------------------- building tables


def _lines(body: bytes, n: int) -> pl.Series | None:
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


def _events_table(files: list[_File], lines: pl.Series) -> pl.DataFrame:
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
    # Payloads not made by stripping the prefix: blobs (from `_fill`), and lines in another
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


def _runs_table(files: list[_File], part: int) -> pl.DataFrame:
    rows = []
    for f in files:
        outcome = f.outcome or _Outcome()
        row = f.run_row | {
            "schema_version": f.schema_version, "n_events": f.n_events, "finished": f.finished,
            "torn": f.problem is not None, "problem": f.problem, "status": outcome.status,
            "stop_reason": outcome.stop_reason, "wall_ms": f.wall_ms, "file": f.path,
            "file_digest": f.digest, "file_bytes": f.file_bytes, "jsonl_bytes": f.jsonl_bytes, "part": part,
        }
        row.update({f"count_{k}": v for k, v in sorted((outcome.counts or {}).items())})
        row.update({f"metric_{k}": v for k, v in sorted((outcome.metrics or {}).items())})
        rows.append(row)
    extra = sorted({k for r in rows for k in r} - set(TABLE_SCHEMAS["runs"]))
    schema = TABLE_SCHEMAS["runs"] | {k: pl.Int64() if k.startswith("count_") else pl.Float64() for k in extra}
    return pl.DataFrame(rows, schema=schema)


@dataclass(slots=True)
class _Batch:
    """Files read together, and their rows of the tables that hold one row per event,
    decision, tool call or claim (in file order, each run's in seq order)."""

    files: list[_File]
    tables: dict[str, pl.DataFrame]


_BATCH_TABLES = ("events", "decisions", "tool_calls", "claims")


def _batch_tables(files: list[_File], lines: pl.Series) -> dict[str, pl.DataFrame]:
    return {
        "events": _events_table(files, lines),
        "decisions": _frame("decisions", [r for f in files for r in f.decisions]),
        "tool_calls": _frame("tool_calls", [r for f in files for r in f.tool_calls], ("attempt_statuses",)),
        "claims": _frame("claims", [r for f in files for r in f.claims], ("card_ids",)),
    }


def _n_rows(f: _File, table: str) -> int:
    return f.n_events if table == "events" else len(getattr(f, table))


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
        default_factory=lambda: dict.fromkeys(("read", "tables", "write"), 0.0))
    """Where the time went: reading, hashing and decoding files; building tables; writing
    Parquet. Tables and writes run in another thread than reading, so the stages can add up
    to more than `seconds`."""

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
        self._blobs_known: set[str] | None = None
        """Blob digests in the store, once an ingest has looked them up."""

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
        enabled = gc.isenabled()
        gc.disable()  # an ingest makes many objects and no cycles: collections only cost time
        try:
            return self._ingest(source, validate)
        finally:
            if enabled:
                gc.enable()

    def _ingest(self, source: str | Path | list[Path], validate: bool) -> IngestReport:
        t0 = time.perf_counter()
        paths = [p for s in ([source] if isinstance(source, (str, Path)) else source) for p in run_files(Path(s))]
        report = IngestReport(files_seen=len(paths))
        self._clean_orphans()
        files_seen = self.manifest["files"]
        tasks = [(key, files_seen.get(key, {}).get("digest")) for key in map(os.path.abspath, paths)]
        self._blobs_known = None
        self._ingested: dict[str, tuple[tuple[bool, int, str], int, int]] = {}
        """run id -> (rank, events, bytes) of the file stored for it by this ingest"""
        stored_before = set(self.manifest["runs"])
        # A second thread builds the rows of each batch of files (polars runs mostly without
        # the GIL) while this one reads and decodes the next batch; at the end of a chunk it
        # writes the chunk's part.
        with ThreadPoolExecutor(1, thread_name_prefix="citeloop-store") as worker:
            waiting: deque[Future[Any]] = deque()
            prepared: list[Future[_Batch]] = []
            batch: list[_File] = []
            batch_bytes = chunk_bytes = 0
            waited = 0.0
            start = time.perf_counter()
            for i, (key, read) in enumerate(_read_all(tasks, validate), start=1):
                if read.file is not None:
                    batch.append(read.file)
                    batch_bytes += read.file.jsonl_bytes
                    chunk_bytes += read.file.jsonl_bytes
                elif read.reason is None:
                    report.files_unchanged += 1
                else:
                    report.skipped.append((key, read.reason))
                    files_seen[key] = {"digest": read.digest, "run_id": None, "status": "skipped",
                                       "reason": read.reason}
                last = i == len(tasks)
                if batch and (batch_bytes >= BATCH_BYTES or chunk_bytes >= CHUNK_BYTES or last):
                    prepared.append(worker.submit(self._prepare_batch, batch, report))
                    waiting.append(prepared[-1])
                    batch, batch_bytes = [], 0
                if prepared and (chunk_bytes >= CHUNK_BYTES or last):
                    waiting.append(worker.submit(self._write_chunk, prepared, report))
                    prepared, chunk_bytes = [], 0
                while len(waiting) > 2:  # read at most two batches ahead of the other thread
                    since = time.perf_counter()
                    waiting.popleft().result()
                    waited += time.perf_counter() - since
            report.stage_seconds["read"] = round(time.perf_counter() - start - waited, 4)
            while waiting:
                waiting.popleft().result()
        for run_id, ((torn, _, _), n_events, n_bytes) in self._ingested.items():
            if run_id in stored_before:
                report.runs_replaced += 1
            else:
                report.runs_added += 1
            report.runs_torn += torn
            report.events += n_events
            report.jsonl_bytes += n_bytes
        if report.skipped and not (report.runs_added or report.runs_replaced or report.files_unchanged
                                   or report.duplicates):
            raise StoreError(f"no readable run files among {len(paths)}; e.g. {report.skipped[0][1]}")
        self._save_manifest()
        report.seconds = round(time.perf_counter() - t0, 4)
        return report

    def _prepare_batch(self, files: list[_File], report: IngestReport) -> _Batch:
        tick = time.perf_counter()
        files, lines = self._batch_lines(files, report)
        tables = _batch_tables(files, lines)
        for f in files:
            f.raw = f.body = b""
        report._add("tables", tick)
        return _Batch(files, tables)

    def _write_chunk(self, prepared: list[Future[_Batch]], report: IngestReport) -> None:
        """Write one part per table with the rows of these batches."""
        tick = time.perf_counter()
        batches = [b.result() for b in prepared]
        files = [f for b in batches for f in b.files]
        # One file per run in the whole ingest: the most events, complete before torn, then
        # by path. One that beats a file of an earlier chunk replaces its rows.
        won = self._ingested
        before = dict(won)
        ranks = [(f.problem is not None, -f.n_events, f.path) for f in files]
        for f, rank in zip(files, ranks):
            if f.run_id not in won or rank < won[f.run_id][0]:
                won[f.run_id] = (rank, f.n_events, f.jsonl_bytes)
        keep = [won[f.run_id][0] == rank for f, rank in zip(files, ranks)]
        for f, kept in zip(files, keep):
            self.manifest["files"][f.path] = {"digest": f.digest, "run_id": f.run_id,
                                              "status": "ingested" if kept else "duplicate"}
            if not kept:
                report.duplicates.append(f.path)
        for run_id, (rank, _, _) in before.items():
            if won[run_id][0] != rank:  # stored by an earlier chunk, now replaced
                self.manifest["files"][rank[2]]["status"] = "duplicate"
                report.duplicates.append(rank[2])
        frames: dict[str, list[pl.DataFrame]] = {t: [] for t in _BATCH_TABLES}
        start = 0
        for b in batches:
            kept = keep[start : start + len(b.files)]
            start += len(b.files)
            for table in _BATCH_TABLES:
                df = b.tables[table]
                if not all(kept):
                    df = df.filter(pl.Series(np.repeat(kept, [_n_rows(f, table) for f in b.files]), dtype=pl.Boolean()))
                frames[table].append(df)
        files = [f for f, kept in zip(files, keep) if kept]
        if not files:
            return
        part = self.new_part()
        tables = {t: pl.concat(frames[t]) for t in _BATCH_TABLES}
        tables["runs"] = _runs_table(files, part)
        blobs: dict[str, str | None] = {}
        for f in files:
            for digest, text in f.blobs.items():
                blobs.setdefault(digest, text)
        if self._blobs_known is None:
            self._blobs_known = self._known_digests()
        new = [d for d in blobs if d not in self._blobs_known]
        self._blobs_known.update(new)
        tables["blobs"] = pl.DataFrame({"digest": new, "text": [blobs[d] for d in new]}, schema=TABLE_SCHEMAS["blobs"])
        tick = report._add("tables", tick)
        for table in TABLES:
            if tables[table].height:
                self.write_part(table, part, tables[table])
        replaced = {f.run_id for f in files if f.run_id in self.manifest["runs"]}
        if replaced:
            self._remove_runs(replaced)
        report._add("write", tick)
        for f in files:
            self.manifest["runs"][f.run_id] = {"file": f.path, "digest": f.digest, "part": part,
                                               "n_events": f.n_events, "torn": f.problem is not None}
        report.parts.append(part)

    def _batch_lines(self, files: list[_File], report: IngestReport) -> tuple[list[_File], pl.Series]:
        """All event lines of `files` as one String column. Splitting them in bulk also checks
        that they are UTF-8 and one event a line; when it fails, each file is checked, and one
        that fails goes through the exact reader (as with `validate`)."""
        lines = _lines(b"".join(f.body for f in files), sum(f.n_events for f in files))
        if lines is not None:
            return files, lines
        kept = []
        for f in files:
            body = bytes(f.body)
            try:
                ok = body.count(b"\n") == f.n_events and isinstance(body.decode("utf-8"), str)
            except UnicodeDecodeError:
                ok = False
            read = _Read(f.digest, f) if ok else _read_file(f.path, f.raw, f.digest, None, exact=True)
            if read.file is None:
                report.skipped.append((f.path, read.reason))
                self.manifest["files"][f.path] = {"digest": f.digest, "run_id": None, "status": "skipped",
                                                  "reason": read.reason}
            else:
                kept.append(read.file)
        lines = _lines(b"".join(f.body for f in kept), sum(f.n_events for f in kept))
        if lines is None:  # pragma: no cover - every file passed the exact checks
            raise StoreError("internal error: event lines that pass the exact checks fail the bulk split")
        return kept, lines


def ingest(source: str | Path, store: str | Path, validate: bool = False) -> IngestReport:
    """`citeloop store ingest`: compact run files under `source` into the store at `store`."""
    source = Path(source)
    run_files(source)  # fail on a bad source before a store directory is made
    return Store.create(store).ingest(source, validate=validate)
