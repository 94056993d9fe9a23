"""retinue.plugins: the plugin boundary.

Every tool card reaches the kernel through a plugin: a distribution declares an entry point
in the `retinue` group, pointing at a module of `@hookimpl` functions (see `hookspecs`). This
package holds the hook specifications, the marker plugin authors use (they write
`from retinue import hookimpl`), the functions that build a plugin manager and collect what
the plugins provide, and `PluginCatalog`, which keeps that for an actor system's agents.
Nothing is discovered at import; `get_plugin_manager()` does the work each time it is
called.
"""

from retinue.plugins.catalog import PluginCatalog
from retinue.plugins.collect import (
    PluginInfo,
    capabilities_by_plugin,
    collect_capabilities,
    collect_card_classes,
    default_card_classes,
    describe_plugins,
)
from retinue.plugins.hookspecs import PROJECT_NAME, hookimpl, hookspec
from retinue.plugins.manager import (
    DISABLE_AUTOLOAD_ENV,
    DISABLED_PLUGINS_ENV,
    ENTRY_POINT_GROUP,
    CardConflictError,
    PluginConflictError,
    PluginError,
    PluginLoadError,
    PluginWarning,
    UnknownHookError,
    autoload_disabled_by_env,
    blocked_by_env,
    get_plugin_manager,
    validate_plugins,
)

__all__ = [
    "DISABLED_PLUGINS_ENV",
    "DISABLE_AUTOLOAD_ENV",
    "ENTRY_POINT_GROUP",
    "PROJECT_NAME",
    "CardConflictError",
    "PluginCatalog",
    "PluginConflictError",
    "PluginError",
    "PluginInfo",
    "PluginLoadError",
    "PluginWarning",
    "UnknownHookError",
    "autoload_disabled_by_env",
    "blocked_by_env",
    "capabilities_by_plugin",
    "collect_capabilities",
    "collect_card_classes",
    "default_card_classes",
    "describe_plugins",
    "get_plugin_manager",
    "hookimpl",
    "hookspec",
    "validate_plugins",
]
