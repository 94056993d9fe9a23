"""Installing throwaway distributions for the discovery tests, without leaking them.

A distribution is "installed" the way a site-packages directory holds one: its modules and a
`<name>-<version>.dist-info` directory with `METADATA` and `entry_points.txt`, in a temporary
directory put on `sys.path`. `importlib.metadata` (and so pluggy) then finds it exactly as it
finds a `pip install`ed one, with no build step and no network.

Each test gets its own directory. At teardown the directory leaves `sys.path`, its modules
leave `sys.modules`, and the fixture checks that no `retinue` entry point from it is still
visible, so the exact-discovery test never sees a fixture plugin.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import shutil
import sys
import textwrap
import tomllib
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest
from retinue.plugins import DISABLE_AUTOLOAD_ENV, DISABLED_PLUGINS_ENV, ENTRY_POINT_GROUP

REPOSITORY = Path(__file__).resolve().parents[2]
EXAMPLE_PLUGIN = REPOSITORY / "docs" / "example-plugin"
"""retinue-notes, the complete minimal plugin the docs walk through."""


def write_distribution(
    root: Path,
    name: str,
    version: str = "1.0",
    entry_points: Mapping[str, str] | None = None,
    modules: Mapping[str, str] | None = None,
) -> Path:
    """Write a distribution into `root`: module sources by relative path, and its dist-info."""
    for relative, source in (modules or {}).items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source))
    dist_info = root / f"{name.replace('-', '_')}-{version}.dist-info"
    dist_info.mkdir()
    (dist_info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
    )
    lines = [f"[{ENTRY_POINT_GROUP}]"]
    lines += [f"{ep} = {target}" for ep, target in (entry_points or {}).items()]
    (dist_info / "entry_points.txt").write_text("\n".join(lines) + "\n")
    return dist_info


def install_example_plugin(root: Path) -> Path:
    """Install docs/example-plugin (retinue-notes) into `root`, from its own pyproject."""
    project = tomllib.loads((EXAMPLE_PLUGIN / "pyproject.toml").read_text())["project"]
    for package in (EXAMPLE_PLUGIN / "src").iterdir():
        if package.is_dir() and not package.name.startswith((".", "_")):
            shutil.copytree(
                package, root / package.name, ignore=shutil.ignore_patterns("__pycache__")
            )
    return write_distribution(
        root,
        project["name"],
        project["version"],
        entry_points=project["entry-points"][ENTRY_POINT_GROUP],
    )


@pytest.fixture(autouse=True)
def _plain_discovery_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Discovery tests start from the defaults, whatever the calling shell has set."""
    monkeypatch.delenv(DISABLE_AUTOLOAD_ENV, raising=False)
    monkeypatch.delenv(DISABLED_PLUGINS_ENV, raising=False)


@pytest.fixture
def site_dir(tmp_path: Path) -> Iterator[Path]:
    """A temporary site-packages on `sys.path` for the duration of one test."""
    root = tmp_path / "site-packages"
    root.mkdir()
    sys.path.insert(0, str(root))
    importlib.invalidate_caches()
    try:
        yield root
    finally:
        sys.path.remove(str(root))
        for module_name, module in list(sys.modules.items()):
            location = getattr(module, "__file__", None) or ""
            if location.startswith(str(root)):
                del sys.modules[module_name]
        importlib.invalidate_caches()
        leaked = [
            ep.name
            for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)
            if ep.dist is not None and str(ep.dist.locate_file("")).startswith(str(root))
        ]
        assert not leaked, f"fixture plugins still visible after the test: {leaked}"


@pytest.fixture
def example_plugin(site_dir: Path) -> Path:
    """The example plugin distribution (retinue-notes), installed for this test only."""
    return install_example_plugin(site_dir)
