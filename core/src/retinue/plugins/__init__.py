"""The plugin boundary: hook specifications, discovery and what plugins provide.

The package holds the hook specifications, the marker plugin authors use (they write
`from retinue import hookimpl`), the functions that build a plugin manager and collect what
the plugins provide, and `PluginCatalog`, which keeps that for an actor system's agents.
Nothing is discovered at import; `get_plugin_manager()` does the work each time it is
called.
"""

from retinue.plugins.catalog import PluginCatalog as PluginCatalog
from retinue.plugins.collect import PluginInfo as PluginInfo
from retinue.plugins.collect import capabilities_by_plugin as capabilities_by_plugin
from retinue.plugins.collect import collect_capabilities as collect_capabilities
from retinue.plugins.collect import collect_card_classes as collect_card_classes
from retinue.plugins.collect import collect_panel_classes as collect_panel_classes
from retinue.plugins.collect import default_card_classes as default_card_classes
from retinue.plugins.collect import describe_plugins
from retinue.plugins.hookspecs import PROJECT_NAME as PROJECT_NAME
from retinue.plugins.hookspecs import hookimpl
from retinue.plugins.hookspecs import hookspec as hookspec
from retinue.plugins.manager import DISABLE_AUTOLOAD_ENV as DISABLE_AUTOLOAD_ENV
from retinue.plugins.manager import DISABLED_PLUGINS_ENV as DISABLED_PLUGINS_ENV
from retinue.plugins.manager import ENTRY_POINT_GROUP as ENTRY_POINT_GROUP
from retinue.plugins.manager import CardConflictError as CardConflictError
from retinue.plugins.manager import PluginConflictError as PluginConflictError
from retinue.plugins.manager import PluginError, get_plugin_manager
from retinue.plugins.manager import PluginLoadError as PluginLoadError
from retinue.plugins.manager import PluginWarning as PluginWarning
from retinue.plugins.manager import UnknownHookError as UnknownHookError
from retinue.plugins.manager import autoload_disabled_by_env as autoload_disabled_by_env
from retinue.plugins.manager import blocked_by_env as blocked_by_env
from retinue.plugins.manager import validate_plugins as validate_plugins
from retinue.plugins.role_kinds import RoleKind
from retinue.plugins.role_kinds import collect_role_kinds as collect_role_kinds

__all__ = [
    "PluginError",
    "RoleKind",
    "describe_plugins",
    "get_plugin_manager",
    "hookimpl",
]
