"""Run the code in the docs, so that what they show stays true.

Every ```python block of a Markdown file runs, in order, in one namespace per file (a file
reads top to bottom like one script; a later block may use what an earlier one defined).
Blocks fenced ```py are shown but not run: fragments, a real provider, a pytest test. A
block that defines `main()` behind `if __name__ == "__main__":` has `main()` called.

A block of any language whose first line is `# file: PATH` (PATH relative to the repository)
is an excerpt: the rest of the block must appear, verbatim up to its indentation, in that
file. Every python
block of the README must likewise appear in examples/quickstart.py.

    python docs/check_snippets.py            # README.md and docs/*.md
    python docs/check_snippets.py FILE.md    # just these

Needs the kernel and the team, mailbox, planning, workspace, skills, models and otel plugins
installed; runs offline.
"""

from __future__ import annotations

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
            except Exception:
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
    return failures


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
    paths = [Path(a).resolve() for a in argv] or [
        ROOT / "README.md",
        *sorted((ROOT / "docs").glob("*.md")),
    ]
    failures = check_quickstart() if not argv else []
    for path in paths:
        failures += check_excerpts(path)
        failures += run_file(path)
        print(f"{path.relative_to(ROOT)}: {len(blocks(path))} blocks run")
    for failure in failures:
        print(f"\nFAILED {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
