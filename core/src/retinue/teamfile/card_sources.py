"""What to install for a card a team file names and no installed plugin provides.

The cards of retinue's own plugins are known here by name. From a clone of the repository
(the kernel's source beside `plugins/<name>/pyproject.toml`) the hint installs that folder;
otherwise the published distribution, `retinue-<name>`.
"""

from __future__ import annotations

import importlib.metadata
import os
from pathlib import Path

#: The cards of retinue's own plugins, by the plugin providing each (`plugins/<plugin>`,
#: distribution `retinue-<plugin>`).
FIRST_PARTY_CARDS = {
    "mailbox": "mailbox",
    "mcp": "mcp",
    "models": "models",
    "notify": "notify",
    "planning": "planning",
    "skills": "skills",
    "team": "team",
    "tracing": "otel",
    "workspace": "workspace",
}


def missing_card_hint(card: str) -> str | None:
    """What to do about `card` being missing, when it is one of ours: what to install, or
    that its distribution is installed but its plugin was not loaded."""
    plugin = FIRST_PARTY_CARDS.get(card)
    if plugin is None:
        return None
    distribution = f"retinue-{plugin}"
    try:
        importlib.metadata.distribution(distribution)
    except importlib.metadata.PackageNotFoundError:
        folder = _clone_root() / "plugins" / plugin
        if (folder / "pyproject.toml").is_file():
            return f"its plugin is not installed: pip install {_shown(folder)}"
        return f"its plugin is not installed: pip install {distribution}"
    return f"{distribution} is installed but its plugin is not loaded (RETINUE_DISABLED_PLUGINS?)"


def _clone_root() -> Path:
    """Where a clone's root would be: the kernel's source is `core/src/retinue` in it."""
    return Path(__file__).resolve().parents[4]  # teamfile, retinue, src, core, the root


def _shown(folder: Path) -> str:
    """`./plugins/x` from the clone's root, a relative path from inside it, else absolute."""
    try:
        relative = os.path.relpath(folder)
    except ValueError:  # another drive (Windows)
        return str(folder)
    if relative.startswith(".."):
        return str(folder)
    return relative if relative.startswith(".") else f"./{relative}"
