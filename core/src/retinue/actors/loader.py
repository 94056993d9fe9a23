"""Import a class given as a dotted path, with one clear line when it fails."""

from __future__ import annotations

import importlib
from typing import Any

from retinue.actors.errors import ActorClassError


def import_object(path: str) -> Any:
    """Import `package.module.Name` or `package.module:Name`."""
    module_name, sep, attr = path.partition(":")
    if not sep:
        module_name, _, attr = path.rpartition(".")
    if not module_name or not attr:
        raise ActorClassError(f"cannot import {path!r}: expected 'package.module.Name'")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ActorClassError(f"cannot import {path!r}: {exc}") from None
    try:
        obj = module
        for part in attr.split("."):
            obj = getattr(obj, part)
    except AttributeError:
        raise ActorClassError(f"cannot import {path!r}: {module_name} has no {attr!r}") from None
    return obj


def qualified_name(obj: type[Any]) -> str:
    """The dotted path `import_object` reads back."""
    return f"{obj.__module__}.{obj.__qualname__}"
