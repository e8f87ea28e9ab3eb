"""Writing a result folder safely: work happens in `<out>.partial`, which replaces `out` only
when complete; a non-empty `out` is refused unless the caller allows overwriting."""

from __future__ import annotations

import shutil
from pathlib import Path


def staging_dir(out: Path, overwrite: bool, refusal: Exception) -> Path:
    """A fresh, empty `<out>.partial` beside `out`; raises `refusal` when `out` exists and is
    not an empty folder, unless `overwrite`."""
    if out.exists() and (not out.is_dir() or any(out.iterdir())) and not overwrite:
        raise refusal
    staging = out.with_name(out.name + ".partial")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    return staging


def move_into_place(staging: Path, out: Path) -> None:
    """Replace `out` (file or folder, if any) with the finished `staging` folder."""
    if out.exists():
        shutil.rmtree(out) if out.is_dir() else out.unlink()
    staging.rename(out)
