"""Reading a model reply that should be one JSON object: the only parsing the LLM parts do.

The parts send a JSON-schema constraint, so a server with structured outputs (vLLM) returns
bare JSON, and the client already marks a reply that is not JSON as `parse_error`. What is
left here: a failed call, or valid JSON that is not an object, gives a reason string, never
a guess at what the model meant.
"""

from __future__ import annotations

import json
from typing import Any

from citeloop.runtime.llm.client import ModelReply


def json_object(reply: ModelReply) -> tuple[dict[str, Any] | None, str]:
    """(the object, "") or (None, why the reply is unusable)."""
    if not reply.ok:
        return None, f"model call failed ({reply.status}: {reply.error or 'no detail'})"
    try:
        value = json.loads(reply.text)
    except ValueError as exc:
        return None, f"reply is not JSON ({exc}): {reply.text[:80]!r}"
    if not isinstance(value, dict):
        return None, f"reply is JSON but not an object ({type(value).__name__})"
    return value, ""
