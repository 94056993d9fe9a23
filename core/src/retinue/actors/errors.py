"""Errors raised by the actor runtime, and how a failure is described in one line."""

from __future__ import annotations

import logging
import traceback
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from retinue.actors.messages import Message


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
    `person_told` says the person already heard of it from the code that raised it, so the
    failure path does not tell them a second time.
    """

    def __init__(self, *args: object, person_told: bool = False) -> None:
        super().__init__(*args)
        self.person_told = person_told


#: How much of a failure's text goes into a log line, and of its traceback into the record.
CAUSE_LIMIT = 300
TRACEBACK_LIMIT = 20_000


def describe_error(exc: BaseException, limit: int = CAUSE_LIMIT) -> str:
    """`Type: message` on one line, bounded: a log line, a notice, never a page of text.

    The innermost cause is named too when there is one (pydantic-ai's "Exceeded maximum
    output retries" says little without the validation error under it).
    """
    text = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    root = exc
    seen = {id(exc)}
    while root.__cause__ is not None and id(root.__cause__) not in seen:
        root = root.__cause__
        seen.add(id(root))
    lines = str(root).strip().splitlines() if root is not exc else []
    if lines and lines[0] not in text:
        text += f" (from {type(root).__name__}: {lines[0]})"
    return one_line(text, limit)


#: Control characters (terminal escapes among them) shown as `?` in a line for people.
_CONTROLS = {code: "?" for code in [*range(0x20), *range(0x7F, 0xA0)]}


def one_line(text: str, limit: int = CAUSE_LIMIT) -> str:
    """`text` with its whitespace runs collapsed to single spaces, cut to `limit` characters.

    Control characters become `?`: a line a person reads on a terminal must not carry a
    terminal escape written by a model or a tool.
    """
    flat = " ".join(text[: limit * 4].split())  # never split megabytes to keep a few hundred
    flat = flat.translate(_CONTROLS)
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def log_failure(
    log: logging.Logger, what: str, exc: BaseException, level: int = logging.ERROR
) -> None:
    """`what: Type: message` as one line at `level`; the traceback at DEBUG only.

    A log read by a person gets one line per failure; whoever debugs turns DEBUG on.
    """
    log.log(level, "%s: %s", what, describe_error(exc))
    log.debug("traceback of the failure above (%s)", what, exc_info=exc)


def format_traceback(exc: BaseException, limit: int = TRACEBACK_LIMIT) -> str:
    """The formatted traceback, its tail kept when long (the raise site and message are last)."""
    text = "".join(traceback.format_exception(exc))
    if len(text) <= limit:
        return text
    return f"[{len(text) - limit} characters cut]\n" + text[-limit:]


class HandlerAbortedError(ActorError):
    """An asked method raised `SystemExit` or `KeyboardInterrupt`; only that call failed.

    pykka answers such an exception by stopping every actor in the process, so the actor
    contains it: the asker receives this error and the actor goes on serving.
    """


def describe_turn(message: Message) -> str:
    """`AgentMessage 1a2b3c4d from @Manager`: enough to find the turn in the record."""
    sender = message.sender.name if message.sender is not None else "outside"
    return f"{type(message).__name__} {message.id[:8]} from {sender}"


def as_failure(caught: BaseException, message: Message) -> Exception:
    """An ordinary exception for a turn's failure; `SystemExit` and the like are wrapped.

    pykka would stop every actor of the process on one; here it fails this turn only, and
    the failure hooks (typed for `Exception`) answer it like any other.
    """
    if isinstance(caught, Exception):
        return caught
    aborted = HandlerAbortedError(f"{type(caught).__name__} raised in {describe_turn(message)}")
    aborted.__cause__ = caught
    return aborted


class SelfAskError(ActorError):
    """Code running for an agent's own run (one of its tools) asked that agent and waited.

    The agent's thread is blocked until that run ends, so the ask could only time out; it is
    refused at once instead. Ask another actor, or call the agent's method directly.
    """
