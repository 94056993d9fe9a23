"""Plugins import only the kernel's faces: `retinue`, `retinue.testing` and the listed ones.

A face is a module whose `__all__` retinue keeps stable (docs/plugin-authoring.md, "The
public face"); every other kernel module changes when the kernel does. This parses every
plugin's sources with `ast`, imports inside functions, `TYPE_CHECKING` blocks and `try`
blocks included, and names by file and line each import of a retinue module that is not on
its plugin's list. retinue-ray is a runtime, not a card plugin: it implements the system's
`Cluster` seam and carries the team's budget and chains between hosts, so its list is longer.
"""

from __future__ import annotations

import ast
import importlib
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
KERNEL = ROOT / "core" / "src" / "retinue"
#: The faces, as docs/plugin-authoring.md lists them.
FACES = frozenset(
    {
        "retinue",
        "retinue.console",
        "retinue.kit",
        "retinue.record",
        "retinue.replay",
        "retinue.resume",
        "retinue.store",
        "retinue.teamfile",
        "retinue.testing",
    }
)
#: What a runtime may import beyond the faces: the parts of the team it carries between hosts.
RUNTIMES = {
    "ray": FACES | {"retinue.team.budget", "retinue.team.chains", "retinue.llm.model_overrides"},
}
PLUGINS = sorted(path.name for path in (ROOT / "plugins").iterdir() if (path / "src").is_dir())


def _is_kernel(module: str) -> bool:
    return module == "retinue" or module.startswith("retinue.")


def _is_kernel_module(name: str) -> bool:
    """Whether `retinue.x.y` names a module of the kernel (not a name inside one)."""
    path = KERNEL.joinpath(*name.split(".")[1:])
    return path.is_dir() or path.with_suffix(".py").is_file()


def _imported(node: ast.Import | ast.ImportFrom) -> Iterator[str]:
    """The kernel modules an import statement loads."""
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names if _is_kernel(alias.name))
    elif node.level == 0 and _is_kernel(node.module or ""):
        module = node.module or ""
        yield module
        for alias in node.names:  # `from retinue.team import recorder` loads a module too
            if _is_kernel_module(f"{module}.{alias.name}"):
                yield f"{module}.{alias.name}"


def imports_below_the_faces(source: str, filename: str, allowed: frozenset[str]) -> list[str]:
    """`file:line: module` for every kernel module the source imports that is not allowed."""
    return [
        f"{filename}:{node.lineno}: {module}"
        for node in ast.walk(ast.parse(source, filename))
        if isinstance(node, ast.Import | ast.ImportFrom)
        for module in _imported(node)
        if module not in allowed
    ]


@pytest.mark.parametrize("plugin", PLUGINS)
def test_a_plugin_imports_only_the_faces(plugin: str) -> None:
    allowed = RUNTIMES.get(plugin, FACES)
    found = [
        problem
        for path in sorted((ROOT / "plugins" / plugin / "src").rglob("*.py"))
        for problem in imports_below_the_faces(
            path.read_text(), str(path.relative_to(ROOT)), allowed
        )
    ]
    assert not found, "imports below the kernel's faces:\n" + "\n".join(found)


def test_an_import_below_the_faces_is_found_wherever_it_stands() -> None:
    source = (
        "from typing import TYPE_CHECKING\n"
        "import retinue.agent\n"
        "from retinue import ToolCard, actors\n"
        "from retinue.kit import shown\n"
        "if TYPE_CHECKING:\n"
        "    from retinue.team.budget import Admission\n"
        "def stop() -> str:\n"
        "    try:\n"
        "        from retinue.agent.cancel import NO_RUN_IN_PROGRESS\n"
        "    except ImportError:\n"
        "        return ''\n"
        "    return NO_RUN_IN_PROGRESS\n"
    )
    assert imports_below_the_faces(source, "card.py", FACES) == [
        "card.py:2: retinue.agent",
        "card.py:3: retinue.actors",
        "card.py:6: retinue.team.budget",
        "card.py:9: retinue.agent.cancel",
    ]
    assert imports_below_the_faces(source, "team.py", RUNTIMES["ray"]) == [
        "team.py:2: retinue.agent",
        "team.py:3: retinue.actors",
        "team.py:9: retinue.agent.cancel",
    ]


@pytest.mark.parametrize("face", sorted(FACES - {"retinue"}))
def test_each_face_lists_what_it_offers(face: str) -> None:
    module = importlib.import_module(face)
    names = module.__all__
    assert names, f"{face} lists nothing"
    missing = [name for name in names if getattr(module, name, None) is None]
    assert not missing, f"{face}.__all__ lists names it does not have: {missing}"


def test_the_guide_names_every_face() -> None:
    guide = (ROOT / "docs" / "plugin-authoring.md").read_text()
    section = guide.split("## The public face", 1)[1]
    named = set(re.findall(r"`(retinue(?:\.\w+)*)`", section))
    assert not FACES - named, f"faces the guide does not name: {sorted(FACES - named)}"
