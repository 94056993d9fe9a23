"""Turn observers: what a plugin may watch of an agent's turns (tracing, audit, metrics).

A turn is the handling of one message by one actor. An observer, given for an agent by the
`retinue_turn_observers` hook, sees two things and changes neither:

- the turn: `turn(message)` is a context manager the kernel enters in the actor's thread
  before the handler runs and exits after the turn's last report, with the exception that
  failed the turn as a `with` block would (it cannot suppress it: the turn has failed and
  been reported already). What it yields becomes the trace context of every message the
  actor sends during the turn; None leaves them the handled message's (that is all the
  kernel does without observers: the trace context is inherited like the chain id).
- what the turn reports: `report(message)` is called, as it happens and from whichever
  thread, with everything the actor reports to its team during the turn (its model runs'
  events, skipped routes, stopped chains, budget refusals, checkpoints, its `ErrorMessage`
  and the `HandledMessage` that closes the turn; with `TeamConfig.turn_reports`, its
  `ReceivedMessage` first and its `ProcessedMessage`), and with the team changes the turn
  makes: the `StartMessage` of a member it hires, a `StopMessage` for each member it fires
  (the fired one's hires too).

The observers of the turn in flight are kept in a context variable, which follows the turn's
work to the model loop and to the worker threads of its sync tools: a hire made by a tool is
reported to the turn that ran the tool. An observer that raises is logged and skipped; an
observer never fails a turn.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from retinue.actors.errors import describe_error
from retinue.actors.messages import Message

if TYPE_CHECKING:
    from retinue.actors.address import ActorAddress
    from retinue.actors.runtime_api import Runtime

logger = logging.getLogger(__name__)


@runtime_checkable
class TurnObserver(Protocol):
    """Watches one agent's turns; a plugin builds one per agent (`retinue_turn_observers`)."""

    def turn(self, message: Message) -> AbstractContextManager[Mapping[str, str] | None]:
        """A context around the whole turn of `message`; yields a trace context, or None."""
        ...

    def report(self, message: Message) -> None:
        """Something the turn in flight reported or did (see the module's docstring)."""
        ...


_observing: ContextVar[tuple[TurnObserver, ...]] = ContextVar("retinue_turn_observers", default=())
_warned: set[type[object]] = set()


def observing() -> bool:
    """Whether a turn with observers is in flight in this context."""
    return bool(_observing.get())


def observe(message: Message) -> None:
    """Report `message` to the observers of the turn in flight in this context, if any."""
    for observer in _observing.get():
        try:
            observer.report(message)
        except BaseException as exc:  # noqa: BLE001 - SystemExit too: a tracer never ends a turn
            _warn(observer, "report", exc)


class ObservedTurn:
    """The observers' contexts around one turn: entered when made, exited by `close`."""

    def __init__(self, observers: Sequence[TurnObserver], message: Message) -> None:
        self._entered: list[tuple[TurnObserver, AbstractContextManager[object]]] = []
        trace = message.trace_context
        for observer in observers:
            try:
                context = observer.turn(message)
                given = context.__enter__()
            except BaseException as exc:  # noqa: BLE001 - SystemExit too: tracers never end a turn
                _warn(observer, "turn", exc)
                continue
            self._entered.append((observer, context))
            if given:
                trace = {**(trace or {}), **given}
        #: What messages sent during this turn carry as their trace context.
        self.trace_context = trace
        self._token = _observing.set(tuple(observer for observer, _ in self._entered))

    def close(self, failure: BaseException | None) -> None:
        """Exit every context, the last entered first, with the turn's failure if it failed."""
        _observing.reset(self._token)
        for observer, context in reversed(self._entered):
            try:
                if failure is None:
                    context.__exit__(None, None, None)
                else:
                    context.__exit__(type(failure), failure, failure.__traceback__)
            except BaseException as exc:  # noqa: BLE001 - SystemExit too: tracers never end a turn
                if exc is not failure:
                    _warn(observer, "turn", exc)


def _warn(observer: TurnObserver, what: str, exc: BaseException) -> None:
    """Once per observer class at WARNING (a broken tracer would repeat it every turn)."""
    kind = type(observer)
    level = logging.DEBUG if kind in _warned else logging.WARNING
    _warned.add(kind)
    logger.log(
        level,
        "turn observer %s.%s failed in %s(), skipped: %s",
        kind.__module__,
        kind.__qualname__,
        what,
        describe_error(exc),
    )


def reports_turns(system: Runtime, orchestrator: ActorAddress | None, member: ActorAddress) -> bool:
    """Whether `member`'s team has its members report their turns; False outside a team."""
    if orchestrator is None:
        return False
    try:
        return system.team_view(orchestrator, member).directory.turn_reports
    except RuntimeError:  # the orchestrator has stopped, or cannot be reached from here
        return False
