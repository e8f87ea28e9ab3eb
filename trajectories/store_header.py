"""The run header as the store reads it: a msgspec struct derived from `header.RunHeader`.

An ingest validates the header of every file it reads. pydantic's `RunHeader` took about a
fifth of the ingest's own work beyond the bare decode, so the store first decodes line 1 into
`HEADER_STRUCT`, a msgspec struct built from the pydantic models' `model_fields` (not written
a second time): the same fields, required or defaulted as the models say (except `type`,
required here: a line without it is not a run header), unknown fields refused where the model
forbids them, and each field of the JSON type its annotation names.

The struct is at most as lenient as the models. msgspec's types are strict (an int is a JSON
integer, not `"3"`, `3.0` or `true`), where pydantic's lax mode converts some values; so a
header the struct refuses may still be valid, and `read_header` then hands it to `RunHeader`,
which accepts it or words the error exactly as before. The struct also leaves to `RunHeader`
every schema version but 1 to `SCHEMA_VERSION` (newer files are refused there, with its
message): within them `header.migrate_header` only fills defaults, which the struct has.
A model that gains a validator (other than `RunHeader`'s version check), an alias or a
type the struct cannot state fails at import, so the two cannot drift apart silently.
"""

from __future__ import annotations

from types import NoneType, UnionType
from typing import Any, Literal, Union, get_args, get_origin

import msgspec
from pydantic import BaseModel

from citeloop.trajectories.header import SCHEMA_VERSION, RunHeader

KNOWN_VALIDATORS: dict[str, set[str]] = {"RunHeader": {"_check_version"}}
"""The model validators the struct stands in for: `RunHeader`'s version check (the struct
takes versions 1 to `SCHEMA_VERSION` only, as migrated headers only gain defaults)."""
REQUIRED_TAGS = frozenset({"type"})
"""Fields the struct requires although the model defaults them."""


def _wire(annotation: Any, where: str) -> Any:
    """The msgspec type that accepts what a pydantic field of `annotation` accepts, or less."""
    origin = get_origin(annotation)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return derive_struct(annotation)
    if origin is Literal or annotation in (str, int, bool, NoneType) or annotation is Any:
        return annotation
    if origin in (Union, UnionType):
        return Union[tuple(_wire(a, where) for a in get_args(annotation))]  # noqa: UP007 - a runtime union
    if origin is list:
        return list[_wire(get_args(annotation)[0], where)]  # type: ignore[misc]
    if origin is dict:
        key, value = get_args(annotation)
        if key is not str:
            raise TypeError(f"store header: {where} has keys {key!r}; JSON object keys are strings")
        return dict[str, _wire(value, where)]  # type: ignore[misc]
    raise TypeError(f"store header: {where} is annotated {annotation!r}, which the store's header struct "
                    "cannot state; extend store_header._wire")


def derive_struct(model: type[BaseModel]) -> type[msgspec.Struct]:
    """A msgspec struct with `model`'s fields (see the module docstring)."""
    decorators = model.__pydantic_decorators__
    found = {name for group in (decorators.model_validators, decorators.field_validators, decorators.validators,
                                decorators.root_validators) for name in group}
    if found - KNOWN_VALIDATORS.get(model.__name__, set()):
        raise TypeError(f"store header: {model.__name__} has validators {sorted(found)} that the store's header "
                        "struct does not apply; teach store_header about them")
    fields: list[tuple[str, Any] | tuple[str, Any, Any]] = []
    for name, info in model.model_fields.items():
        where = f"{model.__name__}.{name}"
        if info.alias not in (None, name) or info.metadata:
            raise TypeError(f"store header: {where} has an alias or constraints the header struct does not apply")
        wire = _wire(info.annotation, where)
        if info.is_required() or name in REQUIRED_TAGS:
            fields.append((name, wire))
        elif info.default_factory is not None:
            fields.append((name, wire, msgspec.field(default_factory=info.default_factory)))  # type: ignore[arg-type]
        else:
            fields.append((name, wire, info.default))
    forbid = model.model_config.get("extra") == "forbid"
    return msgspec.defstruct(f"Wire{model.__name__}", fields, kw_only=True, forbid_unknown_fields=forbid,
                             frozen=True, gc=False)


HEADER_STRUCT = derive_struct(RunHeader)
"""Line 1 of a run file, as the store's fast path reads it (attributes as `RunHeader`'s)."""
_DECODER = msgspec.json.Decoder(HEADER_STRUCT)


def fast_header(line: bytes) -> Any | None:
    """Line 1 decoded into `HEADER_STRUCT`, or None where the struct cannot vouch for it
    (not JSON, not a header, a value pydantic may convert, another schema version): the
    caller then asks `RunHeader`."""
    try:
        header = _DECODER.decode(line)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    return header if 1 <= header.schema_version <= SCHEMA_VERSION else None


__all__ = ["HEADER_STRUCT", "derive_struct", "fast_header"]
