"""Errors raised by the actor runtime."""

from __future__ import annotations


class ActorError(RuntimeError):
    """Base of the runtime's own errors."""


class ActorNotFoundError(ActorError):
    """No running actor answers to an address (it stopped, or never started here)."""


class AskTimeoutError(ActorError, TimeoutError):
    """An ask got no answer in time; every ask inside the kernel has a timeout."""


class IdleTimeoutError(ActorError, TimeoutError):
    """`wait_idle` ran out of time; the message names the actors still busy."""


class ActorClassError(ActorError, ValueError):
    """An actor class given by dotted path could not be imported or is not an actor."""


class WarningError(ActorError):
    """A handler ended on purpose with a condition a person should see (a spent budget).

    The actor logs it as a warning, reports an `ErrorMessage` and goes on serving.
    """
