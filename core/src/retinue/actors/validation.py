"""Moved to `retinue.validation`, below every layer, so a card module can build on
`ConfigModel` without loading the actor runtime. Kept for the modules not yet moved."""

from retinue.validation import (
    ConfigError,
    ConfigModel,
    check_timeout,
    prefixed,
    shown,
    warn_at_caller,
)

__all__ = ["ConfigError", "ConfigModel", "check_timeout", "prefixed", "shown", "warn_at_caller"]
