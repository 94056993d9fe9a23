"""What to install for a card a team file names and no installed plugin provides.

The cards of retinue's own plugins are known here by name. When the kernel came from a clone
of the repository (installed editable, or with `pip install ./core`, which pip records in the
distribution's `direct_url.json`) and the clone has `plugins/<name>/pyproject.toml`, the hint
installs that folder; otherwise the published distribution, `retinue-<name>`.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
from pathlib import Path
from urllib.parse import urlsplit

#: The cards of retinue's own plugins, by the plugin providing each (`plugins/<plugin>`,
#: distribution `retinue-<plugin>`).
FIRST_PARTY_CARDS = {
    "knowledge": "knowledge",
    "mailbox": "mailbox",
    "mcp": "mcp",
    "models": "models",
    "notify": "notify",
    "planning": "planning",
    "skills": "skills",
    "team": "team",
    "tracing": "otel",
    "web_search": "web-search",
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
        for root in _clone_roots():
            folder = root / "plugins" / plugin
            if (folder / "pyproject.toml").is_file():
                return f"its plugin is not installed: pip install {_shown(folder)}"
        return f"its plugin is not installed: pip install {distribution}"
    return f"{distribution} is installed but its plugin is not loaded (RETINUE_DISABLED_PLUGINS?)"


def _clone_roots() -> list[Path]:
    """Where a clone's root may be: above the kernel's source (`core/src/retinue`, an
    editable install), and above the `core` folder pip installed the kernel from."""
    roots = [Path(__file__).resolve().parents[4]]  # teamfile, retinue, src, core, the root
    source = _installed_from()
    if source is not None:
        roots.append(source.parent)
    return roots


def _installed_from() -> Path | None:
    """The local folder the kernel was installed from, as pip recorded it (PEP 610)."""
    try:
        recorded = importlib.metadata.distribution("retinue").read_text("direct_url.json")
        url = json.loads(recorded or "null")
    except (importlib.metadata.PackageNotFoundError, ValueError):
        return None
    if not isinstance(url, dict) or not isinstance(url.get("url"), str):
        return None
    parts = urlsplit(url["url"])
    if parts.scheme != "file" or parts.netloc not in ("", "localhost"):
        return None
    from urllib.request import url2pathname  # only for a card that is missing

    return Path(url2pathname(parts.path))


def _shown(folder: Path) -> str:
    """`./plugins/x` from the clone's root, a relative path from inside it, else absolute."""
    try:
        relative = os.path.relpath(folder)
    except ValueError:  # another drive (Windows)
        return str(folder)
    if relative.startswith(".."):
        return str(folder)
    return relative if relative.startswith(".") else f"./{relative}"
