"""One plugin manager per actor system, built on first use (never at import)."""

from __future__ import annotations

import threading
from typing import Any

import pluggy

from retinue.actors.system import ActorSystem
from retinue.plugins.manager import get_plugin_manager

_lock = threading.Lock()


def plugin_manager_for(system: ActorSystem) -> pluggy.PluginManager:
    """The system's plugin manager: the one it was given, or one discovered now and kept."""
    pm: Any = getattr(system, "plugin_manager", None)
    if pm is None:
        with _lock:
            pm = getattr(system, "plugin_manager", None)
            if pm is None:
                pm = get_plugin_manager()
                system.plugin_manager = pm
    return pm  # type: ignore[no-any-return]
