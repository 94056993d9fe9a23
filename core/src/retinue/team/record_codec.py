"""Messages to the record's JSON and back, by a registry of type names.

A message is dumped with pydantic (`model_dump(mode="json")`: `SerializeAsAny` fields keep
their subclass's fields), and every nested model whose class the field does not already say
gets a `"$type"` key naming its class, so decoding rebuilds the same classes (a tagged value
that does not validate as its class, such as a tool card dumped in its data form, is left to
the enclosing model's validation, which reads what it dumped):

    {"$type": "retinue.actors.messages:SentMessage", "id": "...", "sender": {...},
     "message": {"$type": "retinue.agent.messages:AgentMessage", "content": "...", ...}, ...}

A type name is `module:QualName` unless a class was registered under another
(`registry.register(cls, "name")`, for a class that moved). Decoding never imports anything:
a name resolves to a registered class or to a class of a module already imported (a
plugin's, once plugins are loaded), and the class paths a record holds as data (a card's
`agent_class`, a configured tool card's class) stay paths (decoding runs inside the
loader's `reading_record()`); `decode(..., load_classes=True)`, for a resume that starts
what the record names, imports them. A name that resolves to nothing is not an error: the
value becomes an `UnknownMessage` (or `UnknownPayload` where a message cannot stand) that
keeps its fields and its type name, and encodes back to the same JSON.
"""

from __future__ import annotations

import json
import sys
import threading
import types
from collections.abc import Mapping
from datetime import datetime
from typing import Any, Literal, NamedTuple, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic_core import to_json

from retinue.actors.loader import current_path, reading_record
from retinue.actors.messages import Message

TAG = "$type"


class RecordDecodeError(ValueError):
    """A record's JSON could not be turned back into a message (names the type and why)."""


class UnknownMessage(Message):
    """A message of a type this process does not know (a plugin not loaded); fields kept."""

    model_config = ConfigDict(extra="allow", arbitrary_types_allowed=True, defer_build=True)

    type_name: str = Field(default="", exclude=True)


class UnknownPayload(BaseModel):
    """A value of an unknown type that is no message (a plugin's event); fields kept."""

    model_config = ConfigDict(extra="allow", defer_build=True)

    type_name: str = Field(default="", exclude=True)


class TypeRegistry:
    """Type names for the classes a record holds, both ways."""

    def __init__(self) -> None:
        self._by_name: dict[str, type[BaseModel]] = {}
        self._names: dict[type[BaseModel], str] = {}
        self._lock = threading.Lock()

    def register(self, cls: type[BaseModel], name: str | None = None) -> None:
        """Record `cls` under `name` (default `module:QualName`); an old name may be added too."""
        name = name or _default_name(cls)
        with self._lock:
            self._by_name[name] = cls
            self._names.setdefault(cls, name)

    def name_of(self, cls: type[BaseModel]) -> str:
        name = self._names.get(cls)
        return name if name is not None else _default_name(cls)

    def resolve(self, name: str) -> type[BaseModel] | None:
        """The class `name` stands for, or None; only among already imported modules."""
        found = self._by_name.get(name)
        if found is not None:
            return found
        module_name, _, qualname = current_path(name).partition(":")
        obj: Any = sys.modules.get(module_name)
        for part in qualname.split(".") if obj is not None and qualname else ():
            obj = getattr(obj, part, None)
        if isinstance(obj, type) and issubclass(obj, BaseModel):
            return obj
        return None


def _default_name(cls: type[Any]) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


#: The registry the recorder and readers use.
registry = TypeRegistry()


def encode(message: BaseModel) -> str:
    """The record's JSON for `message` (a `Message`, or any pydantic model)."""
    dumped = message.model_dump(mode="json")
    _tag(message, dumped, None)
    return to_json(dumped).decode()


def decode(text: str | bytes, *, load_classes: bool = False) -> Message:
    """The message back from `encode`'s JSON; `RecordDecodeError` if it is not one.

    `load_classes`: import the classes it names as data (to start them); only for a record
    trusted as much as code (a resume).
    """
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise RecordDecodeError(f"a record's data is not JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise RecordDecodeError("a record's data is not a JSON object")
    try:
        if load_classes:
            value = _untag(data, top=True)
        else:
            with reading_record():
                value = _untag(data, top=True)
    except ValueError as exc:  # a validator's own error, raised past pydantic's
        raise RecordDecodeError(f"a record could not be read: {exc}") from exc
    if isinstance(value, Message):
        return value
    raise RecordDecodeError(f"a record holds a {type(value).__name__}, not a message")


def _type_name(value: BaseModel) -> str:
    if isinstance(value, UnknownMessage | UnknownPayload):
        return value.type_name
    return registry.name_of(type(value))


def _declared_class(annotation: Any) -> Any:
    """The one class a field of this annotation rebuilds untold (`X`, `X | None`), or None."""
    if isinstance(annotation, type):
        return annotation
    origin = get_origin(annotation)
    if origin is Union or origin is types.UnionType:
        args = [a for a in get_args(annotation) if a is not type(None)]
        if len(args) == 1 and isinstance(args[0], type):
            return args[0]
    return None


#: Annotations of fields that never hold a model.
_LEAF_TYPES: frozenset[Any] = frozenset({str, int, float, bool, type(None), bytes, datetime})


class _Plan(NamedTuple):
    """How to walk a model class: the fields that may hold a model, each with the class its
    annotation names (or None) and whether a value of exactly that class can be skipped
    (a class of plain fields: nothing to tag in it); `nested`: any such field at all."""

    fields: tuple[tuple[str, Any, bool], ...]
    nested: bool


_PLANS: dict[type[BaseModel], _Plan] = {}


def _leaf(annotation: Any) -> bool:
    if annotation in _LEAF_TYPES:
        return True
    origin = get_origin(annotation)
    if origin is Union or origin is types.UnionType:
        return all(_leaf(arg) for arg in get_args(annotation))
    return origin is Literal


def _plan(cls: type[BaseModel]) -> _Plan:
    plan = _PLANS.get(cls)
    if plan is None:
        _PLANS[cls] = _Plan(fields=(), nested=False)  # a class that holds itself: no loop
        walked = []
        for name, info in cls.model_fields.items():
            if _leaf(info.annotation):
                continue
            declared = _declared_class(info.annotation)
            plain = (
                isinstance(declared, type)
                and issubclass(declared, BaseModel)
                and not _plan(declared).nested
            )
            walked.append((name, declared, plain))
        extra = cls.model_config.get("extra") == "allow"
        plan = _Plan(fields=tuple(walked), nested=bool(walked) or extra)
        _PLANS[cls] = plan
    return plan


def _tag(value: Any, dumped: Any, declared: Any) -> None:
    """Add `TAG` to each dumped model whose class its field does not name (in place)."""
    if isinstance(value, BaseModel):
        if isinstance(dumped, dict):
            _tag_model(value, dumped, declared)
    elif isinstance(value, list | tuple):
        if isinstance(dumped, list):
            for item, item_dumped in zip(value, dumped, strict=False):
                if isinstance(item, BaseModel | list | tuple | Mapping):
                    _tag(item, item_dumped, None)
    elif isinstance(value, Mapping) and isinstance(dumped, dict):
        for key, item in value.items():
            if isinstance(item, BaseModel | list | tuple | Mapping) and key in dumped:
                _tag(item, dumped[key], None)


def _tag_model(value: BaseModel, dumped: dict[str, Any], declared: Any) -> None:
    cls = type(value)
    if cls is not declared:
        dumped[TAG] = _type_name(value)
    plan = _plan(cls)
    if not plan.nested:
        return
    fields = value.__dict__
    for name, field_class, plain in plan.fields:
        item = fields.get(name)
        if item is None or (plain and type(item) is field_class):
            continue
        sub = dumped.get(name)
        if sub is not None:
            _tag(item, sub, field_class)
    for name, extra in (value.__pydantic_extra__ or {}).items():  # an unknown type's
        if name in dumped:
            _tag(extra, dumped[name], None)


def _untag(data: Any, top: bool = False) -> Any:
    if isinstance(data, list):
        return [_untag(item) for item in data]
    if not isinstance(data, dict):
        return data
    fields = {key: _untag(item) for key, item in data.items() if key != TAG}
    name = data.get(TAG)
    if not isinstance(name, str):
        return fields
    cls = registry.resolve(name)
    if cls is None:
        return _unknown(name, fields)
    try:
        return cls.model_validate(fields)
    except ValidationError as exc:
        if top:
            raise RecordDecodeError(f"a recorded {name} no longer validates: {exc}") from exc
        # A model whose dumped form is not its fields (a card's data form): the enclosing
        # model's own validation reads it, as it reads what it dumped.
        return fields


def _unknown(name: str, fields: dict[str, Any]) -> BaseModel:
    """A message's stand-in when the fields are a message's (an id, a time), else a payload's."""
    if "id" in fields and "timestamp" in fields:
        try:
            return UnknownMessage.model_validate({**fields, "type_name": name})
        except ValidationError:
            pass
    return UnknownPayload.model_validate({**fields, "type_name": name})
