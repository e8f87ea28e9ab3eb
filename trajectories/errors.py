"""Pydantic validation errors as one line a user can act on: the one place that words them.

Every config file, data file and header check of citeloop validates with pydantic and turns
`ValidationError.errors()` into its own message. Each keeps its own vocabulary ("unknown
config key", "missing field", "row: ..."), so the vocabulary is data: an `ErrorWording` of
format templates, one per file kind. This module owns how an error is located, what its
message is (a validator's own words, without pydantic's "Value error, " wrapper), how
unknown keys are grouped by section with the valid keys listed, and how problems are joined.

Template fields:

- `{loc}`: the dotted location (`lora.rank`), or `ErrorWording.whole` when it is empty;
- `{at}`: `"{loc}: "`, or nothing when there is no location to name;
- `{msg}`: the error's message;
- `{key}` / `{keys}`: the unknown key (`rank`) / all unknown keys of a section, quoted
  (`'a', 'b'`); `{s}` is "s" when there are several;
- `{section}` and `{place}`: the unknown key's section, and where it is in words
  (`" in section 'lora'"`, or `" " + top_level` for a top-level key);
- `{valid}`: `" (valid: a, b)"` when `valid_keys` knows the section, else nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

ErrorDetails = Mapping[str, Any]
"""One entry of `ValidationError.errors()`."""


@dataclass(frozen=True)
class ErrorWording:
    """How one kind of file words its validation problems (see the module docstring's fields)."""

    other: str = "{at}{msg}"
    """Any error the templates below do not claim."""
    unknown: str | None = None
    """An unknown key (pydantic `extra_forbidden`); None words it as `other`."""
    missing: str | None = None
    """A required key that is absent; None words it as `other`."""
    value: str | None = None
    """A validator's own ValueError; None words it as `other`."""
    group_unknown: bool = False
    """One phrase per section for all of its unknown keys, before the other problems."""
    top_level: str = ""
    """Where a top-level unknown key is, in words (e.g. "at top level"); "" says nothing."""
    valid_keys: Callable[[str], Sequence[str]] | None = None
    """The valid keys of a section ("" is the top level), listed after an unknown key."""
    whole: str = ""
    """What an empty location is called (e.g. "document"); "" names no location."""


PLAIN = ErrorWording()
"""`loc: message`, one per error."""


def error_location(err: ErrorDetails) -> str:
    """The dotted path of the value that failed, e.g. `lora.rank` or `gold.0.sentence`."""
    return ".".join(str(part) for part in err["loc"])


def error_message(err: ErrorDetails) -> str:
    """What went wrong: a validator's own ValueError message, or pydantic's message."""
    cause = err.get("ctx", {}).get("error")
    if err["type"] == "value_error" and cause is not None:
        return str(cause)
    return str(err["msg"]).removeprefix("Value error, ")


def _fields(err: ErrorDetails, wording: ErrorWording, keys: Sequence[str] | None = None) -> dict[str, str]:
    loc = error_location(err)
    section, _, key = loc.rpartition(".")
    keys = keys or [key]
    if section:
        place = f" in section '{section}'"
    else:
        place = f" {wording.top_level}" if wording.top_level else ""
    valid = list(wording.valid_keys(section)) if wording.valid_keys is not None else []
    named = loc or wording.whole
    return {"loc": named, "at": f"{named}: " if named else "", "msg": error_message(err), "key": key,
            "keys": ", ".join(f"'{k}'" for k in keys), "s": "s" if len(keys) > 1 else "", "section": section,
            "place": place, "valid": f" (valid: {', '.join(valid)})" if valid else ""}


def _template(err: ErrorDetails, wording: ErrorWording) -> str:
    kind = err["type"]
    chosen = {"extra_forbidden": wording.unknown, "missing": wording.missing, "value_error": wording.value}.get(kind)
    return chosen if chosen is not None else wording.other


def describe_errors(errors: Sequence[ErrorDetails], wording: ErrorWording = PLAIN) -> list[str]:
    """One phrase per problem, in pydantic's order (unknown keys first, by section, when grouped)."""
    if not (wording.group_unknown and wording.unknown is not None):
        return [_template(err, wording).format(**_fields(err, wording)) for err in errors]
    by_section: dict[str, list[ErrorDetails]] = {}
    for err in errors:
        if err["type"] == "extra_forbidden":
            by_section.setdefault(error_location(err).rpartition(".")[0], []).append(err)
    phrases = [wording.unknown.format(**_fields(group[0], wording,
                                                [error_location(e).rpartition(".")[2] for e in group]))
               for group in by_section.values()]
    return phrases + [_template(err, wording).format(**_fields(err, wording))
                      for err in errors if err["type"] != "extra_forbidden"]


def validation_message(exc: ValidationError | Sequence[ErrorDetails], wording: ErrorWording = PLAIN,
                       first_only: bool = False) -> str:
    """The problems of a validation error as one line: every problem joined by "; ", or the
    first alone (`first_only`, for a message that is about one value)."""
    errors = exc.errors() if isinstance(exc, ValidationError) else list(exc)
    return "; ".join(describe_errors(errors[:1] if first_only else errors, wording))


__all__ = ["ErrorDetails", "ErrorWording", "PLAIN", "describe_errors", "error_location", "error_message",
           "validation_message"]
