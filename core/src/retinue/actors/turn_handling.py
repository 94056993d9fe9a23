"""An actor's turns: each mailbox item dispatched, and a failing turn contained.

A part of `Actor` (`retinue.actors.actor`): a message goes to the `receiveMsg_<Type>`
handler nearest its class along the MRO, an asked or told method call runs by name, and
whatever a turn raises ends that turn only: it is logged, reported, and the actor lives on.
"""

from __future__ import annotations

import logging
import operator
from collections.abc import Callable, Sequence
from typing import Any

from retinue.actors.checkpoints import CheckpointingActor, StateT
from retinue.actors.errors import HandlerAbortedError, as_failure, describe_turn
from retinue.actors.messages import (
    HandledMessage,
    Message,
    ProcessedMessage,
    ProxyCall,
    ReceivedMessage,
    ReportBatch,
)
from retinue.actors.turns import ObservedTurn

logger = logging.getLogger("retinue.actors.actor")

_handler_cache: dict[tuple[type[Any], type[Any]], str | None] = {}


class TurnHandlingActor(CheckpointingActor[StateT]):
    """Dispatch of each mailbox item, the reports a turn owes, and failure survival."""

    def on_receive(self, message: Any) -> Any:
        try:
            if isinstance(message, ProxyCall):
                self._busy = message.method
                return self._call(message)
            if isinstance(message, Message):
                self._busy = type(message).__name__
                self._handle(message)
            elif isinstance(message, ReportBatch):
                self._busy = "reports"
                self._handle_reports(message.reports)
            else:
                logger.warning("%s ignored a non-message %r", self.myAddress.name, message)
            return None
        except Exception:
            raise  # an asked method's own error, for the asker
        except BaseException as exc:  # noqa: BLE001 - SystemExit too: only this message fails
            self._contain(exc, message)
            return None
        finally:
            self._busy = None
            self._system.tracker.done()

    def _handle_reports(self, reports: Sequence[Message]) -> None:
        for report in reports:
            try:
                self._handle(report)
            except BaseException as exc:  # noqa: BLE001 - one report's failure never drops the rest
                self._contain(exc, report)

    def _contain(self, exc: BaseException, message: Any) -> None:
        """Fail one message on an exception that would otherwise leave this actor.

        pykka answers a `SystemExit` or `KeyboardInterrupt` from a handler by stopping every
        actor in the process; here it ends only this message: logged, reported like any
        failure, and an asker receives `HandlerAbortedError`.
        """
        what = f"{message.method}()" if isinstance(message, ProxyCall) else type(message).__name__
        name = self.myAddress.name
        self._log_failure(exc, f"{name}: {type(exc).__name__} raised in {what}")
        if isinstance(message, ProxyCall) and message.reply:
            detail = f": {exc}" if str(exc) else ""
            raise HandlerAbortedError(f"{name}.{what} raised {type(exc).__name__}{detail}") from exc
        self._report_error(exc, message if isinstance(message, Message) else None)

    def _call(self, call: ProxyCall) -> Any:
        method = member_at(self, call.method)
        if call.reply:  # an ask: the caller receives the exception
            try:
                return method(*call.args, **call.kwargs)
            finally:
                self._safe_notify_if_changed()
        try:
            method(*call.args, **call.kwargs)
        except Exception as exc:  # noqa: BLE001 - a told method may raise anything: it is reported
            self._log_failure(exc, f"{self.myAddress.name}.{call.method}() failed")
            self._report_error(exc, None)
        self._safe_notify_if_changed()
        return None

    def _handle(self, message: Message) -> None:
        observers = self._turn_observers
        if not observers:
            self._turn(message)
            return
        observed = ObservedTurn(observers, message)
        previous, self._turn_trace = self._turn_trace, observed.trace_context
        failure: BaseException | None = None
        try:
            failure = self._turn(message)
        finally:
            self._turn_trace = previous
            observed.close(failure)

    def _turn(self, message: Message) -> BaseException | None:
        """Handle one message; what failed the turn (already reported), or None."""
        previous, self._current = self._current, message
        outer_joined, self._joined = self._joined, []
        if self.reports_turns:  # sent with the turn's first report: no mailbox slot of its own
            self._receipt = ReceivedMessage(message_id=message.id)
        try:
            handler = self._handler_for(type(message))
            if handler is None:
                self.receive_unhandled(message)
            else:
                getattr(self, handler)(message, message.sender)
        except BaseException as caught:  # noqa: BLE001 - SystemExit too: only this turn fails
            self._log_failure(caught, f"{self.myAddress.name} failed on {describe_turn(message)}")
            self._safe_notify_if_changed()  # the state the turn left, before its error
            self._report_error(caught, message)
            self._run_failure_hook(self.on_handler_failed, message, as_failure(caught, message))
            return caught
        finally:
            # While `message` is current, so both name it as their cause; one mailbox slot.
            joined, self._joined = self._joined, outer_joined
            if self.orchestrator is not None:  # else nobody hears of it: build nothing
                with self.batched_reports():
                    self._safe_notify_if_changed()
                    if self.reports_turns:
                        self._tell_orchestrator(ProcessedMessage(message_id=message.id))
                    self._report_handled(message)
                    for letter in joined:
                        self._report_handled(letter.message)
            if joined:
                self._release(joined)
            self._current = previous
        return None

    def _report_handled(self, message: Message) -> None:
        """Record that `message` had its turn: everything the turn did is reported before.

        The rule a resume relies on: a message delivered to an actor with no `HandledMessage`
        for it in the record is delivered again. A turn cut short by the system's shutdown
        is not reported handled, so it runs again when the team is resumed.
        """
        if not self._system.shutting_down:
            self._tell_orchestrator(HandledMessage(message_id=message.id))

    def _handler_for(self, message_class: type[Any]) -> str | None:
        key = (type(self), message_class)
        try:
            return _handler_cache[key]
        except KeyError:
            pass
        found = None
        for klass in message_class.__mro__:
            name = f"receiveMsg_{klass.__name__}"
            if callable(getattr(self, name, None)):
                found = name
                break
        _handler_cache[key] = found
        return found

    def receive_unhandled(self, message: Message) -> None:
        """A message no `receiveMsg_<Type>` accepts; logged and dropped."""
        logger.debug("%s has no handler for %s", self.myAddress.name, type(message).__name__)

    def on_handler_failed(self, message: Message, error: Exception) -> None:
        """A handler raised on `message`: tell whoever must know. Runs in the actor's thread.

        The one place a turn is known to have failed for good (the `ErrorMessage` is already
        reported). The base actor tells nobody; an agent answers the one waiting for the turn
        and tells the person. Not called while the system shuts down: that ends turns cleanly.
        """

    def _run_failure_hook(self, hook: Callable[..., None], *args: Any) -> None:
        if self._system.shutting_down:
            return
        try:
            hook(*args)
        except Exception as exc:  # noqa: BLE001 - a failure hook may raise anything: it is logged
            self._log_failure(exc, f"{self.myAddress.name} could not report a failure")


def member_at(actor: object, path: str) -> Any:
    """The attribute of `actor` at a dotted `path` (`command_registry.descriptors`): what an
    ask names, once the runtime has checked it may be called."""
    return operator.attrgetter(path)(actor)
