"""The JSON Schema of the run file format (header plus event union), committed for drift checks."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from citeloop.trajectories.events import event_adapter
from citeloop.trajectories.header import SCHEMA_VERSION, RunHeader

SCHEMA_FILE = "trajectory.schema.json"


def trajectory_schema() -> dict[str, Any]:
    return {
        "title": "citeloop run file",
        "description": "Line 1 is `header`; every later line is one `event`.",
        "schema_version": SCHEMA_VERSION,
        "header": RunHeader.model_json_schema(),
        "event": event_adapter().json_schema(by_alias=True),
    }


def schema_text() -> str:
    return json.dumps(trajectory_schema(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def committed_schema_text() -> str:
    return resources.files("citeloop.trajectories").joinpath("schema", SCHEMA_FILE).read_text(encoding="utf-8")
