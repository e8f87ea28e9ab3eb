"""Reading one run file for the store: its header, and its event lines decoded fast into what
the tables need.

This module owns `read_file` (bytes of one file -> a `DecodedFile`, or why it was refused)
and the fast event decoder behind it.

The decoder is derived from the pydantic event models (`trajectories.events`), not written a
second time: `NEEDED` names, once, the fields the tables take from each event type, and
`derive_line_types` builds from it and the models' `model_fields` one msgspec struct per
type of the `Event` union, tagged by `type`, whose fields have the JSON types the model
annotates (a `Literal` as its plain `str` or `int`: an unknown enum value is stored as
written, and only full validation refuses it). Every field is optional (missing: None);
the fields not named are skipped, but must be well-formed JSON. So a line of an unknown
type fails, and so does a named field of the wrong JSON type; a field renamed in the models
but still named here fails at import; a new event type gets its struct (and `events` rows)
without a change here.

All event lines of a file are decoded in one msgspec call, and checked for `run_id` and
consecutive `seq`; the two checks msgspec cannot make on skipped fields (UTF-8, one event a
line) come with the bulk split of a batch's lines (`store_tables.split_lines`). Full pydantic
validation runs only for files that look damaged (a torn tail, a bad line, a broken zstd
frame) and, with `exact` (`--validate`), for all files; either way a torn file is kept up
to its last good event, as `read_run` cuts it, with `problem` saying why.
"""

from __future__ import annotations

import json
import re
from operator import attrgetter
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from types import NoneType, UnionType
from typing import Any, Literal, Union, get_args, get_origin

import msgspec
from pydantic import BaseModel

from citeloop.trajectories.events import DECISION_TYPES, RENAMED_TAGS, BaseEvent, Event
from citeloop.trajectories.header import SCHEMA_VERSION, RunHeader
from citeloop.trajectories.runfile import RunFileError, decompress_run_bytes, parse_run_bytes
from citeloop.trajectories.store_header import fast_header

EVENT_CLASSES: dict[str, type[BaseEvent]] = {cls.model_fields["type"].default: cls for cls in get_args(Event)}
EVENT_TYPES: frozenset[str] = frozenset(EVENT_CLASSES)

# --------------------------------------------------------------------------- the decoder, derived

VALUE = "value"
"""Take the field's value, decoded as the model types it."""
RAW = "raw"
"""Take the field's JSON text as written (any JSON; missing: empty)."""
COUNT = "count"
"""The field is a list: take its length (its items are checked to be JSON, not decoded)."""

Need = dict[str, "str | Need"]
"""Field name -> VALUE, RAW, COUNT, or (for a nested model) the Need of its fields."""

_DECISION: Need = {"candidates": COUNT, "choice": RAW, "policy": {"name": VALUE, "version": VALUE}, "reason": VALUE}
_ROUND: Need = {"state": {"round": VALUE}}
NEEDED: dict[str, Need] = {
    "angle_decision": _ROUND | _DECISION,
    "stop_decision": _ROUND | _DECISION,
    "read_decision": _DECISION,
    "keep_decision": _DECISION,
    "follow_decision": _ROUND | _DECISION,
    "query_issued": {"query": VALUE, "angle": VALUE, "round": VALUE},
    "search_result": {"query": VALUE, "response": {"status": VALUE, "hits": COUNT}, "attempts": VALUE},
    "document_read": {"doc_id": VALUE, "status": VALUE, "attempts": VALUE},
    "text_blob": {"digest": VALUE, "text": VALUE},
    "claim_drafted": {"claim": {"claim_id": VALUE, "text": VALUE, "card_ids": VALUE}},
    "verdict_reached": {"record": {"claim_id": VALUE, "verdict": VALUE, "checker": VALUE, "support": VALUE}},
    "claim_rewritten": {"claim_id": VALUE, "new_text": VALUE},
    "claim_dropped": {"claim_id": VALUE, "reason": VALUE},
    "run_finished": {"outcome": {"status": VALUE, "stop_reason": VALUE, "counts": VALUE, "metrics": VALUE}},
    "run_meta": {"wall_ms": VALUE},
}
"""What the tables take from each event type, beyond the base fields every event has. Types
not named here give only `events` rows."""
BASE_NEED: Need = dict.fromkeys(BaseEvent.model_fields, VALUE)
"""`run_id, seq, parent_seq, subq`: every event line's."""


def _wire(annotation: Any, where: str) -> Any:
    """The msgspec type for a model annotation of plain JSON values."""
    origin = get_origin(annotation)
    if origin is Literal:
        kinds = {type(v) for v in get_args(annotation)}
        if len(kinds) == 1 and kinds <= {str, int}:
            return kinds.pop()
    elif origin in (Union, UnionType):
        return Union[tuple(_wire(a, where) for a in get_args(annotation))]  # noqa: UP007 - a runtime union
    elif origin is list:
        return list[_wire(get_args(annotation)[0], where)]  # type: ignore[misc]
    elif origin is dict:
        key, value = get_args(annotation)
        return dict[_wire(key, where), _wire(value, where)]  # type: ignore[misc]
    elif annotation in (str, int, float, bool, NoneType):
        return annotation
    raise TypeError(f"store decoder: {where} is annotated {annotation!r}, which it cannot decode as a value; "
                    "name its fields (a nested model) or take it RAW or as a COUNT in store_decode.NEEDED")


def _without_none(annotation: Any) -> Any:
    if get_origin(annotation) in (Union, UnionType):
        args = [a for a in get_args(annotation) if a is not NoneType]
        return args[0] if len(args) == 1 else annotation
    return annotation


def _struct(model: type[BaseModel], need: Need, name: str, tag: str | None = None) -> type[msgspec.Struct]:
    """A msgspec struct holding the fields `need` names of `model`, typed from its `model_fields`."""
    fields: list[tuple[str, Any, Any]] = []
    for key, take in need.items():
        where = f"{model.__name__}.{key}"
        if key not in model.model_fields:
            raise TypeError(f"store decoder: {model.__name__} has no field {key!r} (store_decode.NEEDED names it); "
                            f"its fields: {', '.join(model.model_fields)}")
        annotation = model.model_fields[key].annotation
        inner = _without_none(annotation)
        if take == RAW:
            fields.append((key, msgspec.Raw, msgspec.Raw(b"")))
            continue
        if isinstance(take, dict):
            if not (isinstance(inner, type) and issubclass(inner, BaseModel)):
                raise TypeError(f"store decoder: {where} is {annotation!r}, not a model whose fields can be named")
            wire: Any = _struct(inner, take, f"{name}_{key}")
        elif take == COUNT:
            if get_origin(inner) is not list:
                raise TypeError(f"store decoder: {where} is {annotation!r}, not a list to count")
            wire = list[msgspec.Raw]
        elif take == VALUE:
            wire = _wire(annotation, where)
        else:
            raise TypeError(f"store decoder: {where}: unknown need {take!r}")
        fields.append((key, Union[wire, None], None))  # noqa: UP007 - a runtime union
    options: dict[str, Any] = {"tag": tag, "tag_field": "type"} if tag else {}
    return msgspec.defstruct(name, fields, gc=False, **options)


def derive_line_types(needed: dict[str, Need], tags: dict[str, str] | None = None) -> dict[type[msgspec.Struct], str]:
    """One tagged struct per event type of the `Event` union (struct -> type name). `tags`
    maps a type name to the tag its lines carry where that differs (older schema versions)."""
    unknown = set(needed) - EVENT_TYPES
    if unknown:
        raise TypeError(f"store decoder: no event type {', '.join(sorted(unknown))} in the Event union")
    tags = tags or {}
    return {_struct(EVENT_CLASSES[t], BASE_NEED | needed.get(t, {}), f"_{t}", tag=tags.get(t, t)): t
            for t in sorted(EVENT_TYPES)}


LINE_TYPES = derive_line_types(NEEDED)
"""The struct each event line decodes into -> its event type."""
LEGACY_LINE_TYPES = LINE_TYPES | {
    struct: t for struct, t in derive_line_types(NEEDED, {new: old for old, new in RENAMED_TAGS.items()}).items()
    if t in RENAMED_TAGS.values()}
"""For files written before schema version 4 (or without a version), whose lines carry the old
tags of `events.RENAMED_TAGS`: the old tags as well as the current ones (no old tag is a new
one); the rows get the current type names."""
LINE_KINDS = LEGACY_LINE_TYPES
LINES_DECODER = msgspec.json.Decoder(list[Union[tuple(LINE_TYPES)]])  # noqa: UP007 - a runtime union
LEGACY_LINES_DECODER = msgspec.json.Decoder(list[Union[tuple(LEGACY_LINE_TYPES)]])  # noqa: UP007
_LINE_ERRORS = (msgspec.DecodeError, msgspec.ValidationError)
_PLAIN = EVENT_TYPES - set(NEEDED)
_KINDS = {t: t.removesuffix("_decision") for t in DECISION_TYPES}
_ROUND_DECISIONS = frozenset(t for t in DECISION_TYPES if "state" in NEEDED.get(t, {}))
"""Decisions that record the search round (in `state.round`)."""
_RUN_ID, _SEQ, _PARENT_SEQ, _SUBQ = (attrgetter(k) for k in ("run_id", "seq", "parent_seq", "subq"))
_HEX_DIGITS = "0123456789abcdef"
_SCHEMA_VERSION = re.compile(rb'"schema_version":\s*(\d+)')


def line_types(events: list[Any], schema_version: int | None) -> list[str]:
    """The current event type of each decoded line. Before schema 5 a hard limit was a
    `stop_decision` by the `hard_limit` policy (`events.migrate_event`): it is a `hard_limit`
    event, and gives no decision row."""
    types = list(map(LINE_KINDS.__getitem__, map(type, events)))
    if schema_version is None or schema_version < 5:
        types = ["hard_limit" if t == "stop_decision" and e.policy is not None and e.policy.name == "hard_limit"
                 else t for t, e in zip(types, events)]
    return types


def decode_lines(body: bytes | memoryview, schema_version: int | None = SCHEMA_VERSION) -> list[msgspec.Struct]:
    """Event lines (each ending in a newline) decoded in one call: as one JSON array, since no
    JSON text holds a raw newline, and a blank line leaves two commas in a row, which fails.
    `schema_version` is the file's as written (None: the header has none); before 4, lines may
    carry the old tags, and decode into the `LEGACY_LINE_TYPES` structs."""
    decoder = LEGACY_LINES_DECODER if schema_version is None or schema_version < 4 else LINES_DECODER
    # Joined from a view and then replaced: two copies of the lines, not four.
    return decoder.decode(b"".join((b"[", memoryview(body)[:-1], b"]")).replace(b"\n", b","))


# --------------------------------------------------------------------------- one file


@dataclass(slots=True)
class DecodedFile:
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
    """Rows of `decisions`; `choice` as the raw JSON (`msgspec.Raw`), made text for the whole
    batch at once (`store_tables`)."""
    tool_calls: list[tuple[Any, ...]] = field(default_factory=list)
    claims: list[tuple[Any, ...]] = field(default_factory=list)
    finished: bool = False
    outcome: Any = None
    """The decoded `run_finished.outcome` (status, stop_reason, counts, metrics), if any."""
    wall_ms: float | None = None


@dataclass(slots=True)
class FileRead:
    """What reading one file gave: `file`, or else unchanged (`reason` None) or unreadable."""

    digest: str
    file: DecodedFile | None = None
    reason: str | None = None


@lru_cache(maxsize=256)
def _policies_json(names: tuple[tuple[str, str], ...]) -> str:
    """`{kind: policy name}` as compact JSON; cached, as a batch's runs mostly share their policies."""
    return json.dumps(dict(names), separators=(",", ":"))


def _policy_name(policies: dict[str, Any]) -> str:
    if set(policies) == {"spec"}:
        return policies["spec"].name
    return ",".join(f"{kind}={ref.name}" for kind, ref in sorted(policies.items()))


def _header(head: bytes, key: str, stream_problem: str | None) -> Any:
    """Line 1, validated: by the store's header struct (`store_header`), else by `RunHeader`
    (migrated), with errors exactly as `parse_run_bytes` words them."""
    fast = fast_header(head)
    if fast is not None:
        return fast
    try:
        data = msgspec.json.decode(head)
        if isinstance(data, dict) and data.get("type") == "run_header":
            return RunHeader.model_validate(data)
    except (ValueError, msgspec.DecodeError):  # pydantic's ValidationError is a ValueError
        pass
    return parse_run_bytes(head, Path(key), stream_problem=stream_problem).header  # raises RunFileError


def _header_row(header: Any) -> dict[str, Any]:
    """The `runs` columns of a header (a `RunHeader` or a `store_header.HEADER_STRUCT`)."""
    spec = header.spec
    branch = getattr(spec, "branch", None)
    return {
        "run_id": header.run_id, "question": spec.question, "seed": spec.seed,
        "policy": _policy_name(spec.policies),
        "policies": _policies_json(tuple(sorted((k, v.name) for k, v in spec.policies.items()))),
        "planner": spec.planner.name, "planner_version": spec.planner.version,
        "verifier": spec.verifier.name, "verifier_version": spec.verifier.version,
        "search_tool": spec.tools["search"].name if "search" in spec.tools else None,
        "read_tool": spec.tools["read"].name if "read" in spec.tools else None,
        "corpus_fingerprint": spec.corpus_fingerprint, "corpus_source": spec.corpus_source,
        "config_digest": spec.config_digest,
        "parent_run_id": branch.parent_run_id if branch else None,
        "branch_seq": branch.branch_seq if branch else None,
    }


def read_file(key: str, raw: bytes, digest: str, known_digest: str | None, exact: bool) -> FileRead:
    """Check one run file (its bytes `raw`) and decode its events.

    The header is always validated. Event lines get the fast decode (`_fill`); a file it
    refuses, a torn file, and with `exact` every file, goes through the exact reader
    (pydantic on every event), which says where the good events end and why.
    """
    if known_digest == digest:
        return FileRead(digest)
    try:
        data, stream_problem = decompress_run_bytes(raw, compressed=key.endswith(".zst"))
        nl = data.find(b"\n")
        head = data if nl < 0 else data[: nl + 1]
        header = _header(head, key, stream_problem if nl < 0 else None)
    except RunFileError as exc:
        return FileRead(digest, reason=str(exc))
    found = _SCHEMA_VERSION.search(head)  # the version as written (the header model migrates it)
    f = DecodedFile(key, digest, raw, len(raw), len(data), header.run_id, int(found.group(1)) if found else None,
                    _header_row(header))
    if nl < 0:
        f.problem = stream_problem
        return FileRead(digest, f)
    # A torn tail (no final newline) is cut here.
    end = data.rfind(b"\n") + 1
    f.problem = "incomplete last line" if data[end:].strip() else stream_problem
    if exact or f.problem or not _fill(f, memoryview(data)[nl + 1 : end], exact=False):
        run = parse_run_bytes(data, Path(key), stream_problem=stream_problem)
        end = nl + 1
        for _ in range(len(run.events)):
            end = data.index(b"\n", end) + 1
        f.problem = run.problem  # `_fill` changes nothing before it fails
        if not _fill(f, data[nl + 1 : end], exact=True):  # the reader takes these lines, the fast decode not
            return FileRead(digest, reason="its events pass the reader but not the store's fast JSON decode")
    f.body = memoryview(data)[nl + 1 : end]
    return FileRead(digest, f)


def _fill(f: DecodedFile, body: bytes | memoryview, exact: bool) -> bool:
    """Decode the event lines `body` into `f`'s rows; False if a line is not JSON, not an
    object of a known event type, has a needed field of the wrong type, or is not of this
    run and seq.

    Two more checks, that the bytes are UTF-8 (msgspec checks the strings it decodes, not
    those it skips) and that no line holds two events, come with the bulk split of all
    files' lines (`store_ingest`), which runs them file by file when the bulk fails;
    `exact` runs them here.
    """
    if not body:
        return True
    try:
        events: list[Any] = decode_lines(body, f.schema_version)
        if exact:
            body = bytes(body)
            body.decode("utf-8")
    except (UnicodeDecodeError, *_LINE_ERRORS):
        return False
    n = len(events)
    run_id = f.run_id
    if exact and body.count(b"\n") != n:
        return False
    # map/attrgetter: these columns and checks touch every event, so they stay in C
    run_ids = set(map(_RUN_ID, events))
    if list(map(_SEQ, events)) != list(range(n)) or (run_ids and run_ids != {run_id}):
        return False
    types = line_types(events, f.schema_version)
    f.n_events, f.type = n, types
    f.parent_seq = list(map(_PARENT_SEQ, events))
    f.subq = list(map(_SUBQ, events))
    blobs, blob_payloads, decisions, calls = f.blobs, f.blob_payloads, f.decisions, f.tool_calls
    angles: dict[int, str | None] = {}
    drafted: dict[str | None, tuple[Any, ...]] = {}
    checks: dict[str, tuple[Any, Any, Any, int]] = {}
    rewrites: dict[str, str | None] = {}
    drops: dict[str, str | None] = {}
    round_ = None  # the search round: set by angle/stop decisions and queries, carried forward
    encode = msgspec.json.encode
    plain = _PLAIN
    for seq, ev, t in zip(range(n), events, types):
        if t in plain:
            continue
        if t in _KINDS:
            if t in _ROUND_DECISIONS and ev.state is not None and ev.state.round is not None:
                round_ = ev.state.round
            policy = ev.policy
            decisions.append((run_id, seq, ev.parent_seq, ev.subq, _KINDS[t], policy and policy.name,
                              policy and policy.version, ev.choice,
                              None if ev.candidates is None else len(ev.candidates), ev.reason, round_))
        elif t == "text_blob":
            digest = ev.digest
            blob_payloads.append((seq, '{"digest":"' + digest + '"}'
                                  if digest is not None and not digest.strip(_HEX_DIGITS) else None))  # all hex
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
        elif t == "verdict_reached":
            record = ev.record
            if record is not None and record.claim_id is not None:
                n_checks = checks[record.claim_id][3] if record.claim_id in checks else 0
                checks[record.claim_id] = (record.verdict, record.checker, record.support, n_checks + 1)
        elif t == "claim_rewritten":
            if ev.claim_id is not None:
                rewrites[ev.claim_id] = ev.new_text
        elif t == "claim_dropped":
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
