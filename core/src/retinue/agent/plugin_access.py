"""One plugin manager, and one catalog of what its plugins provide, per runtime.

Both are built on first use (never at import): the manager when the system's first agent is
built without one given, the catalog from it at the same moment. Every later agent of the
system, a hire included, reads the catalog, so starting one loads no entry point and calls
no card hook; a plugin registered or unregistered on the manager meanwhile makes the next
agent build a fresh catalog.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any

import pluggy

from retinue.actors.runtime_api import Runtime
from retinue.plugins.catalog import PluginCatalog
from retinue.plugins.manager import get_plugin_manager

_lock = threading.Lock()
# Keyed weakly by system: a catalog lives exactly as long as the system it serves.
_catalogs: weakref.WeakKeyDictionary[Runtime, PluginCatalog] = weakref.WeakKeyDictionary()


def plugin_manager_for(system: Runtime) -> pluggy.PluginManager:
    """The system's plugin manager: the one it was given, or one discovered now and kept."""
    pm: Any = getattr(system, "plugin_manager", None)
    if pm is None:
        with _lock:
            pm = getattr(system, "plugin_manager", None)
            if pm is None:
                pm = get_plugin_manager()
                system.plugin_manager = pm
    return pm  # type: ignore[no-any-return]


def plugin_catalog_for(system: Runtime) -> PluginCatalog:
    """The card classes and capability sources of the system's plugins, collected once.

    Raises what collecting raises (a `CardConflictError`, a `PluginError` naming the plugin)
    every time it is asked until the plugins are fixed: a failed catalog is never kept.
    """
    pm = plugin_manager_for(system)
    catalog = _catalogs.get(system)
    if catalog is not None and catalog.pm is pm and catalog.is_current():
        return catalog
    with _lock:
        catalog = _catalogs.get(system)
        if catalog is None or catalog.pm is not pm or not catalog.is_current():
            catalog = PluginCatalog(pm)
            _catalogs[system] = catalog
        return catalog
