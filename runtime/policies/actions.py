"""The fixed, parseable text form of a decision's action, shared by every training format.

Format lives in code, not in training (seed 20.4): a completion is one line, and candidates
are numbered from 1 as the prompt lists them.

| kind  | action value                      | text                         |
|-------|-----------------------------------|------------------------------|
| stop  | `"stop"` or `"continue"`          | `STOP` / `CONTINUE`          |
| angle | candidate index (0-based int)     | `ANGLE 2`                    |
| follow| candidate index (0-based int)     | `FOLLOW 2`                   |
| read  | tuple of 0-based indices, ordered | `READ 1,3` / `READ NONE`     |
| keep  | tuple of 0-based indices, ordered | `KEEP 2,5` / `KEEP NONE`     |

`parse_action(kind, format_action(kind, a), n) == a` for every valid action; anything else
(other words, numbers out of range, a number twice, trailing text) parses to None.
`read_one_more` lists the read options a deferral margin chooses among.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TypeAlias

Action: TypeAlias = str | int | tuple[int, ...]
"""`"stop"`/`"continue"`, an angle index, or the ordered indices read or kept."""

KINDS = ("stop", "angle", "read", "keep", "follow")
EVENT_TYPE = {"stop": "stop_decision", "angle": "angle_decision", "read": "read_decision", "keep": "keep_decision",
              "follow": "follow_decision"}
INDEX_KINDS = ("angle", "follow")
"""Kinds whose action is one candidate index."""
DEFERRAL_KINDS = (*INDEX_KINDS, "read")
"""Kinds a deferral margin applies to: the model overrules the heuristic's option only by a margin."""
KIND_OF_EVENT = {v: k for k, v in EVENT_TYPE.items()}

_STOP = re.compile(r"\s*(STOP|CONTINUE)\s*", re.IGNORECASE)
_INDEX = {kind: re.compile(rf"\s*{kind.upper()}\s+(\d+)\s*", re.IGNORECASE) for kind in INDEX_KINDS}
_LIST = {kind: re.compile(rf"\s*{kind.upper()}\s+(NONE|\d+(?:\s*,\s*\d+)*)\s*", re.IGNORECASE)
         for kind in ("read", "keep")}


class ActionError(ValueError):
    """An action value that has no text form (wrong type, index out of range, repeated)."""


def format_action(kind: str, action: Action, n_candidates: int) -> str:
    """The completion text of `action`; raises ActionError for a value `parse_action` would reject."""
    if kind == "stop":
        if action not in ("stop", "continue"):
            raise ActionError(f"a stop action is 'stop' or 'continue', not {action!r}")
        return str(action).upper()
    if kind in INDEX_KINDS:
        if not isinstance(action, int) or isinstance(action, bool) or not 0 <= action < n_candidates:
            raise ActionError(f"{kind} action {action!r} is not an index below {n_candidates}")
        return f"{kind.upper()} {action + 1}"
    if kind in ("read", "keep"):
        if not isinstance(action, tuple) or any(not isinstance(i, int) or not 0 <= i < n_candidates for i in action):
            raise ActionError(f"{kind} action {action!r} is not a tuple of indices below {n_candidates}")
        if len(set(action)) != len(action):
            raise ActionError(f"{kind} action {action!r} names a candidate twice")
        return f"{kind.upper()} " + (",".join(str(i + 1) for i in action) if action else "NONE")
    raise ActionError(f"unknown decision kind {kind!r}; valid: {', '.join(KINDS)}")


def parse_action(kind: str, text: str, n_candidates: int) -> Action | None:
    """The action a completion names, or None when it is not exactly one valid action line."""
    if kind == "stop":
        m = _STOP.fullmatch(text)
        return m.group(1).lower() if m else None
    if kind in INDEX_KINDS:
        m = _INDEX[kind].fullmatch(text)
        if not m:
            return None
        index = int(m.group(1)) - 1
        return index if 0 <= index < n_candidates else None
    if kind in _LIST:
        m = _LIST[kind].fullmatch(text)
        if not m:
            return None
        if m.group(1).upper() == "NONE":
            return ()
        indices = tuple(int(part) - 1 for part in m.group(1).split(","))
        if len(set(indices)) != len(indices) or any(not 0 <= i < n_candidates for i in indices):
            return None
        return indices
    return None


def read_one_more(chosen: Sequence[str], candidates: Sequence[str], reads_left: int) -> list[list[str]]:
    """The options of a read decision under a deferral margin: the heuristic's reads first, then
    the heuristic's reads plus one more unread hit each, while the reads left allow one more."""
    options = [list(chosen)]
    if len(chosen) < reads_left:
        options += [[*chosen, doc_id] for doc_id in candidates if doc_id not in chosen]
    return options
