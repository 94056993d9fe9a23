"""A plugin that exits or is interrupted while importing is one clear error naming it.

`SystemExit` and `KeyboardInterrupt` are not `Exception`s, so they used to pass the loader's
error handling: `retinue plugins` then ended silently, with whatever exit code the plugin
chose.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from retinue import hookimpl
from retinue.plugins import (
    PluginError,
    PluginLoadError,
    collect_card_classes,
    get_plugin_manager,
)

from tests.plugins.conftest import write_distribution

ABORTS = {
    "exits": "raise SystemExit(0)\n",
    "interrupts": "raise KeyboardInterrupt\n",
}


def _install_aborting_plugin(site_dir: Path, how: str) -> None:
    write_distribution(
        site_dir,
        f"retinue-{how}",
        "0.3",
        entry_points={how: f"{how}_hooks"},
        modules={f"{how}_hooks.py": ABORTS[how]},
    )


@pytest.mark.parametrize("how", sorted(ABORTS))
def test_a_plugin_aborting_its_import_is_a_load_error_naming_it(site_dir: Path, how: str) -> None:
    _install_aborting_plugin(site_dir, how)
    with pytest.raises(PluginLoadError) as caught:
        get_plugin_manager()
    message = str(caught.value)
    assert f"retinue plugin {how!r} from distribution retinue-{how} 0.3" in message
    assert ("SystemExit" if how == "exits" else "KeyboardInterrupt") in message
    assert f"RETINUE_DISABLED_PLUGINS={how}" in message
    get_plugin_manager(blocked=[how])  # the way out still works


@pytest.mark.parametrize("how", sorted(ABORTS))
def test_retinue_plugins_says_which_plugin_aborted(site_dir: Path, how: str) -> None:
    _install_aborting_plugin(site_dir, how)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site_dir), *sys.path])}
    done = subprocess.run(
        [sys.executable, "-m", "retinue", "plugins"],
        capture_output=True,
        check=False,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"retinue: retinue plugin {how!r} from distribution retinue-{how}")


def test_a_hook_raising_system_exit_is_reported_with_its_plugin() -> None:
    from types import ModuleType

    @hookimpl
    def retinue_tool_cards() -> Any:
        raise SystemExit("bye")

    plugin = ModuleType("quitter")
    plugin.retinue_tool_cards = retinue_tool_cards  # type: ignore[attr-defined]
    pm = get_plugin_manager(autoload=False, plugins=[plugin])
    with pytest.raises(PluginError, match=r"plugin 'quitter'.*SystemExit: bye"):
        collect_card_classes(pm)
