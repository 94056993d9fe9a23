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


class HandlerAbortedError(ActorError):
    """An asked method raised `SystemExit` or `KeyboardInterrupt`; only that call failed.

    pykka answers such an exception by stopping every actor in the process, so the actor
    contains it: the asker receives this error and the actor goes on serving.
    """


class SelfAskError(ActorError):
    """Code running for an agent's own run (one of its tools) asked that agent and waited.

    The agent's thread is blocked until that run ends, so the ask could only time out; it is
    refused at once instead. Ask another actor, or call the agent's method directly.
    """
