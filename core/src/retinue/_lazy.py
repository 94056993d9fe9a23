"""Module attributes loaded on first use, so importing a package stays cheap."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import ModuleType
from typing import Any


def by_name(modules: Mapping[str, Iterable[str]]) -> dict[str, str]:
    """A `lazy_exports` table, name -> module, from names grouped by module.

    A face writes its table as its `TYPE_CHECKING` imports read, each module once; the
    names come out sorted, so the face's `__all__ = list(table)` is a sorted list.
    """
    return dict(sorted((name, module) for module, names in modules.items() for name in names))


def lazy_exports(package: str, exports: Mapping[str, str]) -> Callable[[str], Any]:
    """A module `__getattr__` importing `name` from `exports[name]` on first access.

    The value is stored in the package's namespace, so the import happens once.
    """

    def load(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)
        return value

    return load


def lazy_face(
    package: str, layers: Sequence[str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """A module `__getattr__` and `__dir__` for a face: the union of the `__all__` of `layers`.

    Which names a layer puts on the face, and where they live, is written once: in that
    layer's `__all__`. A lookup asks the layers already imported first, then imports the
    others in the given order (cheapest first), so it loads no more than it must. Found
    values are stored in the package's namespace, so each name is looked up once; only the
    full list (`__all__`, `dir()`) or a name on no face needs every layer imported.
    """

    def everything() -> list[str]:
        modules = [importlib.import_module(layer) for layer in layers]
        names = sorted({name for module in modules for name in _exported(module) or ()})
        vars(sys.modules[package])["__all__"] = names
        return names

    def load(name: str) -> Any:
        if name == "__all__":
            return everything()
        if name.startswith("_"):  # dunder probes (`__path__`, `__wrapped__`) stay cheap
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module = _layer_of(name, layers)
        if module is None:
            raise AttributeError(_missing(package, name, layers))
        value = getattr(module, name)
        setattr(sys.modules[package], name, value)
        return value

    def listing() -> list[str]:
        return sorted({*vars(sys.modules[package]), *load("__all__")})

    return load, listing


def _exported(module: ModuleType | None) -> Sequence[str] | None:
    """The module's `__all__`, or None while it is still being imported."""
    exported: Sequence[str] | None = getattr(module, "__all__", None)
    return exported


def _layer_of(name: str, layers: Sequence[str]) -> ModuleType | None:
    pending: list[str] = []
    for layer in layers:
        module = sys.modules.get(layer)
        exported = _exported(module)
        if exported is None:
            pending.append(layer)
        elif name in exported:
            return module
    for layer in pending:
        module = importlib.import_module(layer)
        if name in (_exported(module) or ()):
            return module
    return None


def _missing(package: str, name: str, layers: Sequence[str]) -> str:
    """One line for a name not on the face, naming the layer that has it, if one does."""
    for layer in layers:
        value = getattr(sys.modules[layer], name, None)
        if value is not None and not isinstance(value, ModuleType):
            return (
                f"module {package!r} has no attribute {name!r}: it is kernel-internal, "
                f"import it from {layer}"
            )
    return f"module {package!r} has no attribute {name!r}"
