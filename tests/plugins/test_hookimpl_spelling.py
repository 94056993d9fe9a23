"""`hookimpl` is written one way everywhere: `from retinue import hookimpl`.

A plugin author copies what the docs, the plugin template (`retinue plugin new`) and the
kernel's own plugins do; two spellings make them wonder whether the two markers differ. The
marker lives in `retinue.plugins`, and `retinue/__init__.py` re-exports it: those two are
the only places that name it otherwise.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HOME = ROOT / "core" / "src" / "retinue" / "plugins"
PUBLIC_FACE = ROOT / "core" / "src" / "retinue" / "__init__.py"  # re-exports it from HOME

# `from retinue.plugins import hookimpl`, `from retinue.plugins.hookspecs import (..., hookimpl)`
OTHER_IMPORT = re.compile(r"from\s+retinue\.plugins[\w.]*\s+import\s+(\([^)]*\)|[^\n]*)")
# `retinue.plugins.hookimpl`, `plugins.hookspecs.hookimpl`, `retinue.hookimpl`, and a marker
# of one's own (`pluggy.HookimplMarker("retinue")`)
OTHER_ATTRIBUTE = re.compile(r"\b(retinue|plugins(\.hookspecs)?)\.hookimpl\b|HookimplMarker\(")


def _files() -> list[Path]:
    patterns = ("*.py", "*.md", "*.toml", "*.tmpl")  # the plugin template too
    roots = [ROOT / "docs", ROOT / "plugins", ROOT / "tests", ROOT / "core", ROOT / "examples"]
    found = [ROOT / "README.md"]
    for root in roots:
        for pattern in patterns:
            found += root.rglob(pattern)
    return [
        path
        for path in found
        if path.is_file()
        and HOME not in path.parents
        and path != PUBLIC_FACE
        and path != Path(__file__).resolve()
        and ".venv" not in path.parts
    ]


def test_hookimpl_is_imported_from_retinue_everywhere() -> None:
    wrong: list[str] = []
    for path in _files():
        text = path.read_text(encoding="utf-8")
        for match in OTHER_IMPORT.finditer(text):
            if re.search(r"\bhookimpl\b", match.group(1)):
                wrong.append(f"{path.relative_to(ROOT)}: {' '.join(match.group(0).split())}")
        wrong += [f"{path.relative_to(ROOT)}: {m.group(0)}" for m in OTHER_ATTRIBUTE.finditer(text)]

    assert wrong == [], "write `from retinue import hookimpl`:\n" + "\n".join(wrong)


def test_the_docs_name_one_spelling() -> None:
    hooks = (ROOT / "docs" / "hooks.md").read_text(encoding="utf-8")
    assert "from retinue import hookimpl" in hooks
