"""retinue-otel: a team's work as OpenTelemetry traces, one trace per task chain.

Every agent turn is a span (`agent turn @Developer`), the child of the turn that sent the
message it handles; pydantic-ai's run, model-request and tool spans nest under it. See
docs/tracing.md.

Names load on first use: the entry point (`retinue_otel.hooks`) is imported whenever plugins
are discovered, and must not pull OpenTelemetry in with it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from retinue_otel.card import TracingTool
    from retinue_otel.plugin import CONTENT_ENV, Tracing
    from retinue_otel.propagation import current_trace_context
    from retinue_otel.providers import TracingConfigError, default_provider, provider_from_env

__version__ = "0.1.0"

_WHERE = {
    "CONTENT_ENV": "retinue_otel.plugin",
    "Tracing": "retinue_otel.plugin",
    "TracingConfigError": "retinue_otel.providers",
    "TracingTool": "retinue_otel.card",
    "current_trace_context": "retinue_otel.propagation",
    "default_provider": "retinue_otel.providers",
    "provider_from_env": "retinue_otel.providers",
}

__all__ = [
    "CONTENT_ENV",
    "Tracing",
    "TracingConfigError",
    "TracingTool",
    "__version__",
    "current_trace_context",
    "default_provider",
    "provider_from_env",
]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'retinue_otel' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
