"""Run the code in the docs, so that what they show stays true.

Every ```python block of a Markdown file runs, in order, in one namespace per file (a file
reads top to bottom like one script; a later block may use what an earlier one defined).
Blocks fenced ```py are shown but not run: fragments, a real provider, a pytest test. A
block that defines `main()` behind `if __name__ == "__main__":` has `main()` called.

A block of any language whose first line is `# file: PATH` (PATH relative to the repository)
is an excerpt: the rest of the block must appear, verbatim up to its indentation, in that
file. An excerpt of a Python file must also be complete: every name it reads is imported
or defined in it, so a reader can copy it as it is. Every python block of the README must
likewise appear in examples/quickstart.py.

docs/example-plugin, which the plugin-authoring guide quotes, must be exactly what
`retinue plugin new notes` writes: the guide's excerpts are then the template's output.

    python docs/check_snippets.py            # README.md and docs/*.md
    python docs/check_snippets.py FILE.md    # just these
    python docs/check_snippets.py --write-example-plugin   # after changing the template

Needs the kernel and the team, mailbox, planning, knowledge, workspace, skills, models and
otel plugins installed; runs offline.
"""

from __future__ import annotations

import ast
import builtins
import re
import sys
import textwrap
import traceback
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BLOCK = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)
EXCERPT = re.compile(r"^```\w*\n# file: (\S+)\n(.*?)^```", re.MULTILINE | re.DOTALL)
QUICKSTART = ROOT / "examples" / "quickstart.py"
EXAMPLE_PLUGIN = ROOT / "docs" / "example-plugin"
EXAMPLE_PLUGIN_NAME = "notes"
_NOT_SOURCE = {"__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".tox", ".venv"}
_NOT_SOURCE |= {"build", "dist"}  # what building the plugin writes beside its sources


def blocks(path: Path) -> list[str]:
    return BLOCK.findall(path.read_text())


def run_file(path: Path) -> list[str]:
    """Run every python block of `path`; return one line per failure."""
    name = "docs_snippet_" + re.sub(r"\W", "_", path.stem)
    module = types.ModuleType(name)
    module.__file__ = str(path)
    sys.modules[name] = module  # scripted models are imported by path: f"{__name__}:fn"
    failures = []
    try:
        for number, code in enumerate(blocks(path), start=1):
            try:
                exec(compile(code, f"{path.name}[{number}]", "exec"), module.__dict__)
                if 'if __name__ == "__main__":' in code:
                    module.__dict__["main"]()
            except Exception:  # noqa: BLE001 - a snippet may raise anything: each one is reported
                failures.append(
                    f"{path.relative_to(ROOT)} block {number}:\n{traceback.format_exc()}"
                )
    finally:
        system = module.__dict__.get("system")
        if system is not None and hasattr(system, "shutdown"):
            system.shutdown()
        del sys.modules[name]
    return failures


def check_quickstart() -> list[str]:
    example = QUICKSTART.read_text()
    return [
        f"README.md block {number} is not a verbatim part of examples/quickstart.py"
        for number, code in enumerate(blocks(ROOT / "README.md"), start=1)
        if code.strip() not in example
    ]


def check_excerpts(path: Path) -> list[str]:
    """Excerpts of repository files that no longer match the file."""
    failures = []
    for source, text in EXCERPT.findall(path.read_text()):
        target = ROOT / source
        if not target.is_file() or not _contains(target.read_text(), text):
            failures.append(f"{path.relative_to(ROOT)}: the excerpt of {source} does not match it")
        elif source.endswith(".py") and (missing := unbound_names(textwrap.dedent(text))):
            failures.append(
                f"{path.relative_to(ROOT)}: the excerpt of {source} is not complete: it reads "
                f"{', '.join(missing)} without importing or defining them"
            )
    return failures


def unbound_names(code: str) -> list[str]:
    """Names `code` reads that it neither imports nor defines anywhere (nor are builtins)."""
    bound: set[str] = set(dir(builtins))
    read: set[str] = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Name):
            (read if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
    return sorted(read - bound)


def check_example_plugin() -> list[str]:
    """Where docs/example-plugin differs from the plugin template's output for its name."""
    wanted, found = _example_plugin_files()
    differ = sorted(
        name
        for name in wanted.keys() | found.keys()
        if name not in found or name not in wanted or found[name].read_text() != wanted[name]
    )
    if not differ:
        return []
    return [
        f"docs/example-plugin is not what `retinue plugin new {EXAMPLE_PLUGIN_NAME}` writes: "
        f"{', '.join(differ)} differ (`python docs/check_snippets.py --write-example-plugin` "
        "writes it again)"
    ]


def write_example_plugin() -> None:
    """Make docs/example-plugin the template's output again, after the template changed."""
    wanted, found = _example_plugin_files()
    for name, path in found.items():
        if name not in wanted:
            path.unlink()
    for name, text in wanted.items():
        path = EXAMPLE_PLUGIN / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def _example_plugin_files() -> tuple[dict[str, str], dict[str, Path]]:
    """The template's files for the example's name, and the example's own source files."""
    import retinue
    from retinue.cli.plugin_names import PluginNames
    from retinue.cli.plugin_template import render

    wanted = render(PluginNames.of(EXAMPLE_PLUGIN_NAME), retinue.__version__)
    found = {
        path.relative_to(EXAMPLE_PLUGIN).as_posix(): path
        for path in EXAMPLE_PLUGIN.rglob("*")
        if path.is_file() and _is_source(path.relative_to(EXAMPLE_PLUGIN))
    }
    return wanted, found


def _is_source(relative: Path) -> bool:
    """Not something a build, a test run or a tool left in the plugin's folder."""
    return not any(p in _NOT_SOURCE or p.endswith(".egg-info") for p in relative.parts)


def _contains(whole: str, excerpt: str) -> bool:
    """Whether `excerpt` is a run of whole lines of `whole`, once both are dedented."""
    lines = whole.splitlines()
    wanted = textwrap.dedent(excerpt).strip("\n")
    size = len(wanted.splitlines())
    return any(
        textwrap.dedent("\n".join(lines[start : start + size])).strip("\n") == wanted
        for start in range(len(lines) - size + 1)
    )


def main(argv: list[str]) -> int:
    if argv == ["--write-example-plugin"]:
        write_example_plugin()
        return 0
    paths = [Path(a).resolve() for a in argv] or [
        ROOT / "README.md",
        *sorted((ROOT / "docs").glob("*.md")),
    ]
    failures = check_quickstart() + check_example_plugin() if not argv else []
    for path in paths:
        failures += check_excerpts(path)
        failures += run_file(path)
        print(f"{path.relative_to(ROOT)}: {len(blocks(path))} blocks run")
    for failure in failures:
        print(f"\nFAILED {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
