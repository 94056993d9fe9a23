"""No source in core/ or plugins/ reaches into a dependency's private names.

A private name (`pykka._envelope`, `pykka.messages._ActorStop`, `pydantic_ai._utils`) can
change in any release; using one is what pinned pykka below 4.6. This scans the sources with
`ast` for imports of private modules or names and for private attributes read through a name
bound to a watched package, and names each use by file and line. A class built directly on
a pykka actor class may override none of pykka's private methods but the one hook pykka
documents for implementors of actor types, the inbox factory.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pykka

ROOT = Path(__file__).resolve().parents[1]
WATCHED = frozenset({"pykka", "pluggy", "pydantic_ai", "queue"})
SCANNED = ("core", "plugins")
#: pykka's hook for an actor class's inbox ("for implementors of new actor types").
PYKKA_HOOKS = frozenset({"_create_actor_inbox"})


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _watched(module: str | None) -> bool:
    return module is not None and module.split(".")[0] in WATCHED


def private_uses(source: str, filename: str = "<source>") -> list[str]:
    """`file:line: what` for every private name of a watched package the source uses."""
    return [f"{filename}:{line}: {what}" for line, what in sorted(set(_reach_ins(source)))]


def _reach_ins(source: str) -> Iterator[tuple[int, str]]:
    tree = ast.parse(source)
    bound: set[str] = set()  # local names that stand for a watched module or one of its names
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if not _watched(alias.name):
                    continue
                if any(_private(part) for part in alias.name.split(".")):
                    yield node.lineno, f"import {alias.name}"
                bound.add(alias.asname or alias.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and _watched(node.module):
            module = node.module or ""
            if any(_private(part) for part in module.split(".")):
                yield node.lineno, f"from {module} import ..."
            for alias in node.names:
                if _private(alias.name):
                    yield node.lineno, f"from {module} import {alias.name}"
                bound.add(alias.asname or alias.name)
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and any(_names_pykka(base, bound) for base in node.bases):
            for item in node.body:
                if (
                    isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
                    and _private(item.name)
                    and hasattr(pykka.ThreadingActor, item.name)
                    and item.name not in PYKKA_HOOKS
                ):
                    yield item.lineno, f"{node.name}.{item.name} overrides pykka's private method"
        if not isinstance(node, ast.Attribute) or not _private(node.attr):
            continue
        root: ast.expr = node.value
        path = [node.attr]
        while isinstance(root, ast.Attribute):
            path.append(root.attr)
            root = root.value
        if isinstance(root, ast.Name) and root.id in bound:
            yield node.lineno, ".".join([root.id, *reversed(path)])


def _names_pykka(base: ast.expr, bound: set[str]) -> bool:
    while isinstance(base, ast.Attribute | ast.Subscript):
        base = base.value
    return isinstance(base, ast.Name) and base.id in bound and base.id != "queue"


def _sources() -> Iterator[Path]:
    for top in SCANNED:
        for path in sorted((ROOT / top).rglob("*.py")):
            if not {".venv", "build", "__pycache__"} & set(path.parts):
                yield path


def test_core_and_plugins_use_no_private_name_of_a_dependency() -> None:
    found = [
        use
        for path in _sources()
        for use in private_uses(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    ]
    assert not found, "private names of dependencies in use:\n" + "\n".join(found)


def test_the_scan_finds_each_kind_of_reach_in() -> None:
    source = "\n".join(
        [
            "import pykka",
            "from pykka import messages as pykka_messages",
            "from pykka._envelope import Envelope",
            "import pydantic_ai._utils",
            "from pluggy import _hooks",
            "import queue as q",
            "pykka_messages._ActorStop()",
            "pykka.ThreadingActor._create_future()",
            "q.Queue._put",
            "pykka.__name__",  # a dunder is no private name
            "self._stop()",  # nor is an attribute of our own objects
            "class A(pykka.ThreadingActor):",
            "    def _stop(self): ...",
            "    def _create_actor_inbox(): ...",  # the documented inbox hook
            "    def _own(self): ...",  # a private method of our own
        ]
    )
    assert private_uses(source, "x.py") == [
        "x.py:3: from pykka._envelope import ...",
        "x.py:4: import pydantic_ai._utils",
        "x.py:5: from pluggy import _hooks",
        "x.py:7: pykka_messages._ActorStop",
        "x.py:8: pykka.ThreadingActor._create_future",
        "x.py:9: q.Queue._put",
        "x.py:13: A._stop overrides pykka's private method",
    ]
