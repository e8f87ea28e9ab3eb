"""The response cache: successful model replies on disk, one JSON file per request digest.

The key is the content hash of everything that decides a completion (model, prompt id and
version, messages, sampling, structured-output constraint), so a re-run or a replay of the
same request costs nothing. Only `ok` replies are stored: a failure is worth retrying.
Files are written to a temporary name and renamed, so a crash never leaves half a reply.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

CACHE_ENV = "CITELOOP_CACHE"
"""Root of citeloop's caches; model replies go under `llm/` inside it."""


def default_cache_root() -> Path:
    root = os.environ.get(CACHE_ENV)
    return Path(root) if root else Path.home() / ".cache" / "citeloop"


class ResponseCache:
    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory)

    @classmethod
    def from_env(cls) -> ResponseCache:
        """The cache under `$CITELOOP_CACHE/llm` (default `~/.cache/citeloop/llm`)."""
        return cls(default_cache_root() / "llm")

    def path(self, digest: str) -> Path:
        return self.directory / digest[:2] / f"{digest}.json"

    def get(self, digest: str) -> dict[str, Any] | None:
        path = self.path(digest)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError):
            return None  # an unreadable entry is a miss; the next success overwrites it
        return data if isinstance(data, dict) and data.get("request_digest") == digest else None

    def put(self, digest: str, reply: dict[str, Any]) -> None:
        path = self.path(digest)
        path.parent.mkdir(parents=True, exist_ok=True)
        blob = json.dumps(reply, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(blob)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
