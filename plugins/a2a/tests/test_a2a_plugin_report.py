"""`retinue plugins` shows the role key the installed plugin gives team files."""

from __future__ import annotations

import json

import pytest
from retinue.cli.main import main


def test_the_plugins_report_lists_the_a2a_role_key(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plugins", "--json"]) == 0
    report = {plugin["name"]: plugin for plugin in json.loads(capsys.readouterr().out)}
    assert report["a2a"]["role_kinds"] == [
        {
            "key": "a2a",
            "agent_class": "retinue_a2a:A2AMember",
            "field": "url",
            "description": "a remote A2A agent at this URL",
        }
    ]
    assert all(plugin["role_kinds"] == [] for name, plugin in report.items() if name != "a2a")

    assert main(["plugins"]) == 0
    listing = capsys.readouterr().out.splitlines()
    assert (
        "  role key a2a: a remote A2A agent at this URL (retinue_a2a:A2AMember, its url)" in listing
    )
