"""`retinue plugin new`, end to end, as a plugin author meets it: in a fresh virtual environment.

The kernel is installed from this checkout (as a wheel, so the template must ship in it),
`retinue plugin new acme` writes the plugin, pip installs it the way its README says, its
generated tests pass, and `retinue plugins --json` lists it, alone, with its card.

Kept fast and offline-safe: the environment (with pip), the kernel's dependencies and the
plugin's build backend come from uv's cache, which tox-uv filled while building the other
environments; uv goes online only for what the cache lacks. pip then installs the plugin
from its folder, with no index and no build isolation: what isolation would have fetched
(the build requirements, and what the backend asks for an editable build) is installed
first, from the same cache. Runs in the `template` tox environment (`pytest -m template`,
about 10 s of CPU); deselected elsewhere.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from tests.template.conftest import run, uv

pytestmark = pytest.mark.template


def test_a_new_plugin_installs_passes_its_tests_and_is_listed(fresh: Path, tmp_path: Path) -> None:
    said = run(fresh / "retinue", "plugin", "new", "acme", "--dir", tmp_path)
    assert said.startswith("wrote retinue-acme in ")
    plugin = tmp_path / "acme"

    # What pip's build isolation would fetch: the build system's requirements, then what its
    # backend asks for to build an editable wheel (hatchling: `editables`).
    build = tomllib.loads((plugin / "pyproject.toml").read_text())["build-system"]
    uv("pip", "install", "--python", fresh / "python", *build["requires"])
    ask = f"import {build['build-backend']} as b; print(*b.get_requires_for_build_editable())"
    if wanted := run(fresh / "python", "-c", ask).split():
        uv("pip", "install", "--python", fresh / "python", *wanted)
    run(fresh / "python", "-m", "pip", "install", "--no-index", "--no-build-isolation",
        "-e", f"{plugin}[test]")  # fmt: skip
    tests = run(fresh / "python", "-m", "pytest", "-p", "no:cacheprovider", "acme", cwd=tmp_path)
    assert " passed" in tests and "failed" not in tests and "skipped" not in tests, tests

    report = json.loads(run(fresh / "retinue", "plugins", "--json"))
    assert [(p["name"], p["distribution"], p["version"]) for p in report] == [
        ("acme", "retinue-acme", "0.1.0")
    ]
    (card,) = report[0]["cards"]
    assert (card["name"], card["card_class"], card["default"]) == (
        "acme",
        "retinue_acme.card.AcmeTool",
        False,
    )
    assert (card["distribution"], card["version"]) == ("retinue-acme", "0.1.0")
    assert [tool["name"] for tool in card["tools"]] == ["take_note"]
    assert [command["usage"] for command in card["commands"]] == [
        "/acme [last=<last>] [<words>...]"
    ]
    assert card["context_sections"] == ["Acme"]
    assert card["system_prompts"][0].startswith("You keep a notebook")
    assert card["capabilities"] == ["AcmeAudit"]
    assert report[0]["capabilities"] == []  # an agent without the card gets nothing
