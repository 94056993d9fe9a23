"""The public face: `from retinue import ...` offers exactly the layers' `__all__`, written once.

The face is what users and plugin authors write; each layer lists its contribution in its
own `__all__`, and `retinue/__init__.py` derives the rest (type checkers read star imports,
the run time looks names up lazily). These tests hold the pieces together: nothing is
listed twice, every name resolves to its layer's object, the kernel's own names stay off,
`import retinue` stays cheap, and a type checker sees the same face as the interpreter.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import cast

import pytest
import retinue

ROOT = Path(__file__).resolve().parents[1]
# `retinue` as the interpreter sees it: its `__all__` is made on first use, out of type
# checkers' sight (they read the star imports), so it is read through a plain module here.
RETINUE: ModuleType = retinue
PACKAGE = Path(retinue.__file__).parent
LAYERS = (
    "retinue.actors",
    "retinue.agent",
    "retinue.llm",
    "retinue.plugins",
    "retinue.team",
    "retinue.tools",
    "retinue.tools.commands",
)

# Names the kernel needs to implement itself: off the face, importable from their layer.
KERNEL_ONLY = [
    ("hookspec", "retinue.plugins"),
    ("Letter", "retinue.actors"),
    ("Mailbox", "retinue.actors"),
    ("MAX_NAME_CHARS", "retinue.team"),
    ("redact_credentials", "retinue.actors"),
    ("AgentLike", "retinue.agent"),
    ("TeamResolver", "retinue.agent"),
    ("Cancellation", "retinue.agent"),
    ("NO_RUN_IN_PROGRESS", "retinue.agent"),
    ("render_arrival_notice", "retinue.agent"),
    ("render_failure_notice", "retinue.agent"),
    ("escalate_usage_limit", "retinue.agent"),
    ("try_conclude_without_tools", "retinue.agent"),
    ("ContextManager", "retinue.llm"),
    ("ToolFactory", "retinue.tools"),
    ("resolve_cards", "retinue.tools"),
    ("with_default_cards", "retinue.tools"),
    ("MARKER_RE", "retinue.tools"),
    ("find_markers", "retinue.tools"),
]


def layer(name: str) -> ModuleType:
    return importlib.import_module(name)


def providers(name: str) -> list[str]:
    return [module for module in LAYERS if name in layer(module).__all__]


def test_the_face_is_the_union_of_the_layers() -> None:
    union = {name for module in LAYERS for name in layer(module).__all__}
    assert RETINUE.__all__ == sorted(union)
    for name in RETINUE.__all__:
        found = providers(name)
        assert len(found) == 1, f"{name} is listed by {found or 'no layer'}"
        assert getattr(retinue, name) is getattr(layer(found[0]), name), name


def test_a_layer_lists_only_names_it_has() -> None:
    for module in LAYERS:
        for name in layer(module).__all__:
            assert hasattr(layer(module), name), f"{module}.__all__ lists {name!r}, not there"


def test_each_name_is_written_once_in_the_face_module() -> None:
    """`retinue/__init__.py` lists no name: it star-imports the layers for type checkers."""
    tree = ast.parse((PACKAGE / "__init__.py").read_text())
    strings = {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    }
    assert not strings & set(RETINUE.__all__)
    star_imports = [
        node.module
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and [a.name for a in node.names] == ["*"]
    ]
    assert sorted(cast(list[str], star_imports)) == sorted(LAYERS) == sorted(retinue._LAYERS)


def test_a_lazy_layer_table_agrees_with_its_type_checking_imports() -> None:
    """`retinue.llm` loads its runner names late: its table and its typed imports match."""
    llm = layer("retinue.llm")
    tree = ast.parse(Path(inspect.getfile(llm)).read_text())
    guarded = [
        node
        for node in tree.body
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"
    ]
    typed = {
        alias.asname or alias.name: node.module
        for block in guarded
        for node in block.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    assert typed == llm._LAZY
    for name, module in llm._LAZY.items():
        assert getattr(llm, name) is getattr(layer(module), name)


@pytest.mark.parametrize("face", ["retinue.console", "retinue.kit", "retinue.record"])
def test_a_lazy_face_lists_its_type_checking_imports(face: str) -> None:
    """Such a face's `__all__` is its table, its typed face the imports: the two must agree."""
    module = layer(face)
    tree = ast.parse(Path(inspect.getfile(module)).read_text())
    typed: dict[str, str] = {
        alias.name: node.module or ""
        for block in tree.body
        if isinstance(block, ast.If) and ast.unparse(block.test) == "TYPE_CHECKING"
        for node in block.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
        if alias.asname == alias.name  # `X as X`: re-exported for mypy --strict
    }
    assert typed == module._LAZY
    assert module.__all__ == sorted(typed)
    for name, home in typed.items():
        assert getattr(module, name) is getattr(layer(home), name)


@pytest.mark.parametrize(("name", "home"), KERNEL_ONLY)
def test_kernel_names_are_off_the_face(name: str, home: str) -> None:
    assert name not in RETINUE.__all__
    with pytest.raises(AttributeError, match=f"kernel-internal, import it from {home}"):
        getattr(retinue, name)
    with pytest.raises(ImportError):
        exec(f"from retinue import {name}", {})
    assert getattr(layer(home), name) is not None


def test_an_unknown_name_is_one_clear_error() -> None:
    with pytest.raises(AttributeError, match=r"^module 'retinue' has no attribute 'Nope'$"):
        retinue.Nope  # type: ignore[attr-defined]  # noqa: B018  (off the face, on purpose)


def test_star_import_and_dir_give_the_face() -> None:
    namespace: dict[str, object] = {}
    exec("from retinue import *", namespace)
    assert sorted(set(namespace) - {"__builtins__"}) == RETINUE.__all__
    assert set(RETINUE.__all__) <= set(dir(retinue))


def _docs_text() -> str:
    pages = [*(ROOT / "docs").rglob("*.md"), *(ROOT / "docs").rglob("*.py")]
    return "\n".join(page.read_text() for page in pages)


def _has_own_docstring(value: object) -> bool:
    if inspect.isclass(value) or inspect.isfunction(value):
        return bool(value.__dict__.get("__doc__") if inspect.isclass(value) else value.__doc__)
    return False


def test_every_face_name_is_documented() -> None:
    """A docstring of its own, or a mention in docs/ (constants and type aliases have none)."""
    docs = _docs_text()
    missing = [
        name
        for name in RETINUE.__all__
        if not _has_own_docstring(getattr(retinue, name))
        and not re.search(rf"\b{re.escape(name)}\b", docs)
    ]
    assert not missing, f"undocumented names on the face: {missing}"


def _modules_after(statement: str) -> set[str]:
    code = f"import sys; {statement}; print('\\n'.join(sys.modules))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    return set(out.split())


def test_import_retinue_loads_no_layer() -> None:
    loaded = _modules_after("import retinue")
    assert not {m for m in loaded if m.startswith("retinue.") and m != "retinue._lazy"}
    assert "pydantic" not in loaded


def test_a_card_module_pays_for_the_tools_layer_only() -> None:
    loaded = _modules_after("from retinue import ToolCard, ToolHost, Channel, hookimpl")
    assert "pydantic_ai" not in loaded
    assert "pykka" not in loaded
    assert "retinue.agent" not in loaded


def test_a_type_checker_sees_the_same_face() -> None:
    """mypy accepts every name on the face and refuses every name off it, as the run does.

    `tests/face_probe.py` imports the face plainly and each kernel-only name with an ignore
    that strict mypy reports once it is no longer needed; the `type` environment checks it
    with the rest of tests/. This keeps the probe's two lists equal to the face's.
    """
    probe = ROOT / "tests" / "face_probe.py"
    lines = probe.read_text().splitlines()
    plain: set[str] = set()
    refused: set[str] = set()
    for node in ast.parse("\n".join(lines)).body:
        if isinstance(node, ast.ImportFrom) and node.module == "retinue":
            names = {alias.name for alias in node.names}
            ignored = lines[node.lineno - 1].endswith("# type: ignore[attr-defined]")
            (refused if ignored else plain).update(names)
    face, kernel_only = set(RETINUE.__all__), {name for name, _ in KERNEL_ONLY}
    assert plain == face, f"{probe}: add {sorted(face - plain)}, remove {sorted(plain - face)}"
    assert refused == kernel_only, (
        f"{probe}: add {sorted(kernel_only - refused)}, remove {sorted(refused - kernel_only)}"
    )
