"""Import a class given as a dotted path, with one clear line when it fails.

A record is read without importing anything: validation inside `reading_record()` (the
codec's decoding) keeps class paths as strings, or finds them among the modules already
imported (`imported_object`); the class is imported where a team is started from it.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from retinue.actors.errors import ActorClassError
from retinue.validation import shorten, shown

_READING: ContextVar[bool] = ContextVar("retinue_reading_record", default=False)

_SHAPE = "expected 'package.module.Name' or 'package.module:Name'"

#: Modules that moved from the runtime to the team layer above it (`retinue.team`): records
#: made before name classes by the old paths, which still read.
_MOVED = {
    "retinue.actors.team": "retinue.team.view",
    "retinue.actors.config:TeamConfig": "retinue.team.config:TeamConfig",
    "retinue.actors.config.TeamConfig": "retinue.team.config.TeamConfig",
    **{
        f"retinue.actors.{name}": f"retinue.team.{name}"
        for name in [
            "budget",
            "card",
            "chains",
            "fingerprints",
            "lineage",
            "local_budget",
            "local_team",
            "loop_limits",
            "metadata",
            "names",
            "orchestrator",
            "panels",
            "record_codec",
            "recorder",
            "streams",
            "subscriber",
            "team_log",
            "team_service",
        ]
    },
}


def current_path(path: str) -> str:
    """`path` (`a.b.Name`, `a.b:Name`), with a module that moved named where it is now."""
    if not path.startswith("retinue.actors."):
        return path
    for old, new in _MOVED.items():
        if path.startswith(old) and path[len(old) : len(old) + 1] in ("", ".", ":"):
            return new + path[len(old) :]
    return path


def import_object(path: str) -> Any:
    """Import `package.module.Name` or `package.module:Name` (nested names allowed).

    `pkgutil.resolve_name` does the work; this only turns its failures into one line.
    """
    path = current_path(path)
    try:
        return pkgutil.resolve_name(path)
    except ValueError:
        raise ActorClassError(f"cannot import {shown(path)}: {_SHAPE}") from None
    except AttributeError as exc:
        cause: Exception = _module_that_fails(path) or exc
        raise ActorClassError(f"cannot import {shown(path)}: {shorten(str(cause))}") from None
    except ImportError as exc:
        raise ActorClassError(f"cannot import {shown(path)}: {shorten(str(exc))}") from None


def _module_that_fails(path: str) -> ImportError | None:
    """The error of a module on a dotted path that exists but fails to import, if one does.

    Given `pkg.mod.Name`, `pkgutil.resolve_name` takes a `pkg.mod` that raises ImportError
    (a dependency it needs is missing) for an attribute of `pkg`, and reports a missing
    attribute; the missing dependency is what the person has to fix.
    """
    if ":" in path:
        return None  # the module part was imported as given: its own error surfaced
    parts = path.split(".")
    for end in range(len(parts) - 1, 1, -1):  # longest module candidate first
        name = ".".join(parts[:end])
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name is not None and (name == exc.name or name.startswith(f"{exc.name}.")):
                continue  # not a module at all: try a shorter one
            return exc
        except ImportError as exc:
            return exc
        return None  # the longest module imports: the name really is missing
    return None


def qualified_name(obj: type[Any]) -> str:
    """The dotted path `import_object` reads back."""
    return f"{obj.__module__}.{obj.__qualname__}"


def public_name(obj: type[Any]) -> str:
    """The shortest dotted path that imports `obj`: the first package above its module that
    gives it under its own name (`retinue.BaseAgent`), else `qualified_name`.

    What a record or a file should name a class by: it does not change when the class moves
    between the package's own modules. Only packages already imported are asked.
    """
    qualname = obj.__qualname__
    if "." not in qualname:  # a nested class is named through its owner
        parts = obj.__module__.split(".")
        for end in range(1, len(parts)):
            package = ".".join(parts[:end])
            try:
                found = getattr(sys.modules.get(package), qualname, None)
            # a package's own lazy lookup failing is no name to give
            except Exception:  # noqa: BLE001
                continue
            if found is obj:
                return f"{package}.{qualname}"
    return qualified_name(obj)


@contextmanager
def reading_record() -> Iterator[None]:
    """Validation in this block reads a record: validators import nothing."""
    token = _READING.set(True)
    try:
        yield
    finally:
        _READING.reset(token)


def is_reading_record() -> bool:
    """Whether a record is being read here (inside `reading_record()`)."""
    return _READING.get()


def imported_object(path: str) -> Any:
    """What `path` (`a.b.Name` or `a.b:Name`) names among the modules already imported, or
    None; never imports."""
    module, colon, names = current_path(path).partition(":")
    if not colon:  # the longest imported module on the dotted path
        parts = current_path(path).split(".")
        for end in range(len(parts) - 1, 0, -1):
            if ".".join(parts[:end]) in sys.modules:
                module, names = ".".join(parts[:end]), ".".join(parts[end:])
                break
        else:
            return None
    obj: Any = sys.modules.get(module)
    for name in names.split(".") if obj is not None and names else ():
        try:
            obj = getattr(obj, name, None)
        except Exception:  # noqa: BLE001 - a module's own lazy lookup failing: nothing found
            return None
    return obj


def add_import_folders(folders: Iterable[str]) -> None:
    """Let code be imported from `folders` (a team file's own folder), after the installed
    packages: an `anthropic.py` beside a team file never shadows the real SDK."""
    for folder in folders:
        if folder not in sys.path:
            sys.path.append(folder)
