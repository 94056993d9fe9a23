"""No module of the kernel or of a plugin is over `MAX_LINES` lines.

A module that long holds more than one job; it is split into modules named for what they
hold (as `retinue_web.fold` became `fold`, `delta`, `roster` and `flow_events`). The sources
are counted as files, so the rule holds for a plugin whose dependencies are not installed.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 400


def sources() -> list[Path]:
    """Every `.py` module of the kernel's and each plugin's `src`."""
    roots = [ROOT / "core" / "src", *sorted((ROOT / "plugins").glob("*/src"))]
    return sorted(path for root in roots for path in root.rglob("*.py"))


def line_count(path: Path) -> int:
    """Lines as `wc -l` counts them."""
    return path.read_bytes().count(b"\n")


def test_the_sources_are_found() -> None:
    found = {path.relative_to(ROOT).parts[:2] for path in sources()}
    assert ("core", "src") in found
    assert ("plugins", "web") in found


def test_no_module_is_over_the_limit() -> None:
    over = [
        f"{path.relative_to(ROOT)}: {count} lines"
        for path in sources()
        if (count := line_count(path)) > MAX_LINES
    ]
    assert not over, f"modules over {MAX_LINES} lines (split each by job):\n" + "\n".join(over)
