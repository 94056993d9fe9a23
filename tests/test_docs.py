"""The docs' code runs as written, and their excerpts match the files they quote."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_every_python_block_in_the_docs_runs() -> None:
    pytest.importorskip("retinue_team", reason="the docs' examples hire through retinue-team")
    pytest.importorskip("retinue_mailbox", reason="the docs' examples stop runs through it")
    pytest.importorskip("retinue_workspace", reason="docs/workspace.md runs the workspace card")
    pytest.importorskip("retinue_planning", reason="docs/planning.md runs the planning card")
    pytest.importorskip("retinue_knowledge", reason="docs/knowledge.md runs the knowledge card")
    pytest.importorskip("retinue_skills", reason="docs/skills.md runs the skills card")
    pytest.importorskip("retinue_models", reason="docs/models.md runs the models card")
    pytest.importorskip("retinue_otel", reason="docs/tracing.md traces a team")
    done = subprocess.run(
        [sys.executable, str(ROOT / "docs" / "check_snippets.py")],
        check=False,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]


def test_the_plugin_guide_quotes_the_templates_output_and_only_complete_code() -> None:
    """Needs no plugin, so the kernel-alone environment checks it too: docs/example-plugin
    is what `retinue plugin new notes` writes, and every excerpt of it in the guide matches
    and imports what it uses."""
    spec = importlib.util.spec_from_file_location(
        "check_snippets", ROOT / "docs" / "check_snippets.py"
    )
    assert spec is not None and spec.loader is not None
    checker = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(checker)

    assert checker.check_example_plugin() == []
    assert checker.check_excerpts(ROOT / "docs" / "plugin-authoring.md") == []
    assert checker.unbound_names("from x import y\n\ndef f(a: Z) -> y:\n    return a + q\n") == [
        "Z",
        "q",
    ]


def test_the_readmes_first_command_installs_every_plugin_the_example_team_files_use() -> None:
    import re
    import tomllib

    from retinue.teamfile.card_sources import FIRST_PARTY_CARDS

    readme = (ROOT / "README.md").read_text()
    first = next(line for line in readme.splitlines() if "pip install" in line)
    installed = set(re.findall(r"\./plugins/([a-z]+)", first))
    needed: dict[str, set[str]] = {}
    for team_file in sorted((ROOT / "examples" / "teams").glob("*.toml")):
        roles = tomllib.loads(team_file.read_text()).get("roles", {})
        for role in roles.values():
            for tool in role.get("tools", []):
                card = tool["card"] if isinstance(tool, dict) else tool
                needed.setdefault(FIRST_PARTY_CARDS[card], set()).add(team_file.name)
    assert needed  # the examples name cards, so the check checks something
    assert set(needed) <= installed, {p: sorted(f) for p, f in needed.items() if p not in installed}
    assert {"team", "mailbox"} <= installed  # the default cards: hiring, /stop
