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
plugin's, once plugins are loaded). A name that resolves to nothing is not an error: the
value becomes an `UnknownMessage` (or `UnknownPayload` where a message cannot stand) that
keeps its fields and its type name, and encodes back to the same JSON.
"""

from __future__ import annotations

import json
import sys
import threading
import types
from collections.abc import Mapping
from typing import Any, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from retinue.actors.messages import Message

TAG = "$type"


class RecordDecodeError(ValueError):
    """A record's JSON could not be turned back into a message (names the type and why)."""


class UnknownMessage(Message):
    """A message of a type this process does not know (a plugin not loaded); fields kept."""

    model_config = ConfigDict(extra="allow", arbitrary_types_allowed=True)

    type_name: str = Field(default="", exclude=True)


class UnknownPayload(BaseModel):
    """A value of an unknown type that is no message (a plugin's event); fields kept."""

    model_config = ConfigDict(extra="allow")

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
        module_name, _, qualname = name.partition(":")
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
    return json.dumps(dumped, separators=(",", ":"), ensure_ascii=False)


def decode(text: str | bytes) -> Message:
    """The message back from `encode`'s JSON; `RecordDecodeError` if it is not one."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise RecordDecodeError(f"a record's data is not JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise RecordDecodeError("a record's data is not a JSON object")
    value = _untag(data, top=True)
    if isinstance(value, Message):
        return value
    raise RecordDecodeError(f"a record holds a {type(value).__name__}, not a message")


def _type_name(value: BaseModel) -> str:
    if isinstance(value, UnknownMessage | UnknownPayload):
        return value.type_name
    return registry.name_of(type(value))


def _declared(annotation: Any, cls: type[Any]) -> bool:
    """Whether a field of this annotation rebuilds `cls` without being told (no tag needed)."""
    if annotation is cls:
        return True
    origin = get_origin(annotation)
    if origin is Union or origin is types.UnionType:
        args = [a for a in get_args(annotation) if a is not type(None)]
        return args == [cls]
    return False


def _tag(value: Any, dumped: Any, annotation: Any) -> None:
    if isinstance(value, BaseModel):
        if not isinstance(dumped, dict):
            return
        if annotation is None or not _declared(annotation, type(value)):
            dumped[TAG] = _type_name(value)
        for name, info in type(value).model_fields.items():
            if name in dumped:
                _tag(getattr(value, name, None), dumped[name], info.annotation)
        for name, extra in (value.model_extra or {}).items():  # an unknown type's fields
            if name in dumped:
                _tag(extra, dumped[name], None)
    elif isinstance(value, list | tuple) and isinstance(dumped, list):
        for item, item_dumped in zip(value, dumped, strict=False):
            _tag(item, item_dumped, None)
    elif isinstance(value, Mapping) and isinstance(dumped, dict):
        for key, item in value.items():
            if isinstance(key, str) and key in dumped:
                _tag(item, dumped[key], None)


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
