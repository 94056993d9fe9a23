"""`Actor`: the base every retinue actor is built on (the spec's `Akgent`).

A pykka thread actor with typed config and state, `receiveMsg_<Type>` dispatch along the
message class's MRO, and the rule that a failing handler never kills the actor. It uses only
pykka's public surface: its inbox is a retinue `Mailbox` (given through the hook pykka's actor
classes create their inbox with), it stops through `ActorRef.stop()`, and the kernel's start
and stop bookkeeping runs around `on_start` / `on_stop` (see `Actor.__init__`).
"""

from __future__ import annotations

import logging
import operator
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar, cast

import pykka
from pydantic import BaseModel

from retinue.actors import runtime
from retinue.actors.address import ActorAddress, new_id
from retinue.actors.config import BaseConfig, BaseState
from retinue.actors.dead_letters import drop_letters
from retinue.actors.errors import (
    HandlerAbortedError,
    as_failure,
    describe_error,
    describe_turn,
    format_traceback,
    log_failure,
)
from retinue.actors.intake import Intake
from retinue.actors.mailbox import Letter, Mailbox
from retinue.actors.messages import (
    ErrorMessage,
    EventMessage,
    HandledMessage,
    Message,
    ProcessedMessage,
    ProxyCall,
    ReceivedMessage,
    ReportBatch,
    StartFailedMessage,
    StateChangedMessage,
    StopMessage,
    StopRecursively,
)
from retinue.actors.surface import remote
from retinue.actors.turns import ObservedTurn, TurnObserver, observe, reports_turns

if TYPE_CHECKING:
    from retinue.actors.resumption import Resumption
    from retinue.actors.runtime_api import Runtime
    from retinue.actors.system import ActorSystem

logger = logging.getLogger(__name__)

ConfigT = TypeVar("ConfigT", bound=BaseConfig)
StateT = TypeVar("StateT", bound=BaseState)

_handler_cache: dict[tuple[type[Any], type[Any]], str | None] = {}


class Actor(pykka.ThreadingActor, Generic[ConfigT, StateT]):
    """Base actor: config, state, dispatch, events, children, failure survival."""

    use_daemon_thread = True
    is_user_proxy: ClassVar[bool] = False
    config_class: ClassVar[type[BaseConfig]] = BaseConfig
    """The config this actor is built from: a card validates a config given as data with it."""
    _turn_observers: tuple[TurnObserver, ...] = ()
    """What plugins watch this actor's turns with (`retinue.actors.turns`); none by default."""
    _turn_trace: dict[str, str] | None = None

    def __init__(
        self,
        config: ConfigT,
        *,
        system: ActorSystem,
        address: ActorAddress,
        orchestrator: ActorAddress | None = None,
        parent: ActorAddress | None = None,
        resumption: Resumption | None = None,
    ) -> None:
        super().__init__()
        mailbox = self.actor_inbox
        assert isinstance(mailbox, Mailbox)
        self.mailbox: Mailbox = mailbox
        # pykka calls `self.on_start()` and `self.on_stop()` in the actor's thread. The
        # kernel's bookkeeping has to run around a subclass's hooks of those names, so on
        # this instance the two names lead to the kernel, which calls the class's hooks.
        self.__dict__["on_start"] = self._begin
        self.__dict__["on_stop"] = self._end
        self.config: ConfigT = config
        self._system = system
        self.myAddress = address
        self.orchestrator: ActorAddress | None = orchestrator
        self.parent = parent
        self.state: StateT = self.default_state()
        self._published_state: BaseState | None = None
        self._current: Message | None = None
        #: Letters the turn in flight took in beside its own message (`take_into_turn`).
        self._joined: list[Letter] = []
        self._busy: str | None = None
        #: Where messages enter it: what the runtime and its shutdown use of it.
        self.intake = Intake(mailbox, system.tracker)
        self._report_buffer: list[Message] | None = None
        #: Its team's `TeamConfig.turn_reports` (read as it starts): it reports its turns.
        self.reports_turns = False
        self._receipt: Message | None = None  # the turn's `ReceivedMessage`, not yet sent
        self._resumption = resumption
        self._resumed = resumption is not None
        runtime.register(self)

    @property
    def system(self) -> Runtime:
        """The runtime this actor runs in: all an agent or a card may ask of it."""
        return self._system

    # ------------------------------------------------------------------ state
    def default_state(self) -> StateT:
        """The state a fresh actor starts with; subclasses return their own state class."""
        return cast(StateT, BaseState())

    def init_state(self, state: StateT) -> None:
        """Replace the whole state (a restore does this; never hold on to the old object)."""
        self.state = state
        self.notify_if_changed()

    @property
    def resumed(self) -> bool:
        """Whether this actor was started from the record of an earlier run of its team."""
        return self._resumed

    def on_resume(self, resumption: Resumption) -> None:
        """Hook: take back what the record kept. Runs after `on_start`, before any message.

        The base actor restores its last checkpointed state; override to rebuild more from
        `resumption.events` (call this too).
        """
        state = resumption.state
        if state is None:
            return
        state_class = type(self.default_state())
        if not isinstance(state, state_class):  # the dumped form a store gives back
            data = state.model_dump() if isinstance(state, BaseModel) else state
            state = state_class.model_validate(data)
        self.init_state(state)

    @remote
    def on_team_resumed(self) -> None:
        """Hook: every actor of a resumed team is back. Runs in this actor's thread as a
        message, before the messages the team was owed are delivered again: start here what
        reaches other members (a timer, a delivery), which `on_resume` is too early for."""

    def notify_if_changed(self) -> None:
        """Publish a state checkpoint when the state differs from the last one published.

        Compared by value against the published snapshot (no serialization per message); the
        snapshot is a deep copy, so a later in-place change is still seen as a change.
        """
        if self.orchestrator is None:  # nobody to publish to (an orchestrator itself)
            return
        state = self.state
        if self._published_state is not None and state == self._published_state:
            return
        snapshot = state.model_copy(deep=True)
        self._published_state = snapshot
        self._tell_orchestrator(StateChangedMessage(state=snapshot))

    # ------------------------------------------------------------------ lifecycle
    def on_start(self) -> None:
        """Runs in the actor's thread before the first message; override freely."""

    def on_stop(self) -> None:
        """Runs in the actor's thread when it stops; override freely."""

    def on_system_shutdown(self) -> None:
        """Called from the shutting-down thread: unblock whatever this actor waits on."""

    @staticmethod
    def _create_actor_inbox() -> Mailbox:
        """pykka's hook for an actor class's inbox: ours is the indexed `Mailbox`."""
        return Mailbox()

    def _begin(self) -> None:
        """pykka's `on_start`: the class's `on_start`, first checkpoint, start counted done."""
        if self.intake.thread is not None:  # called by name after the start: just the hook
            type(self).on_start(self)
            return
        self.intake.enter()
        runtime.act_for(self.myAddress.agent_id)  # this thread's context names its actor
        try:
            self.reports_turns = reports_turns(self._system, self.orchestrator, self.myAddress)
            type(self).on_start(self)
            if self._resumption is not None:
                self.on_resume(self._resumption)
                self._resumption = None  # what it held is the actor's own now
            self.notify_if_changed()
        # SystemExit too: this actor fails to start, no other
        except BaseException as exc:  # noqa: BLE001
            self._log_failure(exc, f"{self.myAddress.name} could not start")
            self._report_error(exc, None)
            self._run_failure_hook(self.on_start_failed, exc)
            self.stop()  # owed until the actor has left, so wait_idle waits for that
            self.intake.close()
            self._drop_mail()  # nothing queued gets a turn: the stop is next
        finally:
            self._system.tracker.done()

    def _end(self) -> None:
        """pykka's `on_stop`: the class's `on_stop`, then leave the team and settle the mail."""
        if not self.actor_stopped.is_set():  # called by name while running: just the hook
            type(self).on_stop(self)
            return
        self.intake.close()
        try:
            type(self).on_stop(self)
        finally:
            self._drop_mail()
            runtime.unregister(self.myAddress.agent_id)
            self._system.forget(self)
            if self.orchestrator is not None and self.orchestrator != self.myAddress:
                # a resumed member that could not come back (`_resumption` still held) did
                # not leave its team either: the next resume tries it again
                kept = self._system.shutting_down or self._resumption is not None
                self._tell_orchestrator(StopMessage(shutdown=kept))
            self.intake.settle_stops()

    def _drop_mail(self) -> None:
        """Turn whatever is still queued into dead letters and release its waiters."""
        drop_letters(self._system, self.myAddress, self.mailbox.drain())

    # ------------------------------------------------------------------ mailbox
    def peek_mailbox(self) -> Sequence[Message]:
        """The messages waiting in the mailbox, oldest first, left in place."""
        return [m for m in self.mailbox.peek() if isinstance(m, Message)]

    def has_mail(self) -> bool:
        """Whether anything waits in the mailbox: cheap, whatever its length."""
        return self.mailbox.qsize() > 0

    def consume_mailbox(self, predicate: Callable[[Message], bool]) -> list[Message]:
        """Remove the pending messages matching `predicate`; each gets a `HandledMessage`."""
        letters = self.mailbox.take(lambda m: isinstance(m, Message) and predicate(m))
        self._settle(letters)
        return [letter.message for letter in letters]

    def take_into_turn(self, predicate: Callable[[Message], bool], limit: int) -> list[Message]:
        """Take the messages waiting at the head of the mailbox that match `predicate` (at
        most `limit`, stopping at the first that does not) into the turn in flight.

        They are handled by that turn: each is reported handled with its message, after
        everything the turn did, so a turn cut short by a shutdown leaves all of them to
        be delivered again on resume, as it leaves its own.
        """
        letters = self.mailbox.take_leading(
            lambda m: isinstance(m, Message) and predicate(m), limit
        )
        self._joined.extend(letters)
        return [letter.message for letter in letters]

    def consume_flagged(self) -> list[Letter]:
        """Remove the letters the mailbox's watcher flagged (cancels), each handled like above."""
        letters = self.mailbox.take_flagged()
        self._settle(letters)
        return letters

    def _settle(self, letters: Sequence[Letter]) -> None:
        """Letters taken out of turn: answer an asker, report each handled, count it done."""
        for letter in letters:
            if isinstance(letter.message, Message):
                self._tell_orchestrator(HandledMessage(message_id=letter.message.id))
        self._release(letters)

    def _release(self, letters: Sequence[Letter]) -> None:
        """Letters handled without a turn of their own: answer an asker, count them done."""
        for letter in letters:
            if letter.reply_to is not None:  # an asked message must be answered
                letter.reply_to.set(None)
        if letters:
            self._system.tracker.done(len(letters))

    # ------------------------------------------------------------------ receiving
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

    # ------------------------------------------------------------------ failure
    def on_handler_failed(self, message: Message, error: Exception) -> None:
        """A handler raised on `message`: tell whoever must know. Runs in the actor's thread.

        The one place a turn is known to have failed for good (the `ErrorMessage` is already
        reported). The base actor tells nobody; an agent answers the one waiting for the turn
        and tells the person. Not called while the system shuts down: that ends turns cleanly.
        """

    def on_start_failed(self, error: Exception) -> None:
        """`on_start` raised and the actor is about to stop: tell the actor that created it.

        The parent gets a `StartFailedMessage` (not the orchestrator, which has the
        `ErrorMessage`, and not a person's proxy). Override to tell more; call this too.
        """
        parent = self.parent
        if parent is None or parent == self.orchestrator or parent.is_user_proxy:
            return
        self._system.post(
            parent,
            StartFailedMessage(
                member=self.myAddress,
                exception_type=type(error).__name__,
                exception_value=describe_error(error),
                sender=self.myAddress,
                recipient=parent,
                team_id=self.myAddress.team_id,
            ),
        )

    def undeliverable_notice(self, message: Message, recipient: ActorAddress) -> Message | None:
        """What this actor should receive when `message`, which it sent, found `recipient` gone.

        Called by the system from whichever thread found the dead letter, so it must only
        build a message from its arguments and this actor's address, never touch state.
        None (the default): nothing is owed.
        """
        return None

    def _run_failure_hook(self, hook: Callable[..., None], *args: Any) -> None:
        if self._system.shutting_down:
            return
        try:
            hook(*args)
        except Exception as exc:  # noqa: BLE001 - a failure hook may raise anything: it is logged
            self._log_failure(exc, f"{self.myAddress.name} could not report a failure")

    def _log_failure(self, exc: BaseException, what: str) -> None:
        """One WARNING line naming the cause; the traceback at DEBUG (and in the record).

        While the system shuts down everything is DEBUG: an interrupted turn is a clean end.
        """
        level = logging.DEBUG if self._system.shutting_down else logging.WARNING
        log_failure(logger, what, exc, level)

    def _safe_notify_if_changed(self) -> None:
        try:
            self.notify_if_changed()
        except Exception as exc:  # noqa: BLE001 - publishing may fail in any way: it is logged
            log_failure(logger, f"{self.myAddress.name} could not publish its state", exc)

    def _report_error(self, exc: BaseException, message: Message | None) -> None:
        self._tell_orchestrator(
            ErrorMessage(
                exception_type=type(exc).__name__,
                exception_value=str(exc),
                current_message_id=message.id if message is not None else None,
                traceback=format_traceback(exc),
            )
        )

    # ------------------------------------------------------------------ sending
    @property
    def current_message(self) -> Message | None:
        """The message being handled right now, if any."""
        return self._current

    def stamp(self, recipient: ActorAddress, message: Message) -> Message:
        """A copy of `message` addressed from this actor, in the chain (and the trace context)
        of the current one."""
        current = self._current
        parent_id = message.parent_id
        chain_id = message.chain_id
        trace_context = message.trace_context
        if current is not None:
            if parent_id is None:
                parent_id = current.id
            if trace_context is None:
                trace_context = self._turn_trace if self._turn_observers else current.trace_context
        msg_id = new_id()
        if chain_id is None:
            chain_id = current.chain_id if current is not None and current.chain_id else msg_id
        return message.model_copy(
            update={
                "id": msg_id,
                "sender": self.myAddress,
                "recipient": recipient,
                "team_id": self.myAddress.team_id,
                "parent_id": parent_id,
                "chain_id": chain_id,
                "trace_context": trace_context,
            }
        )

    @remote
    def send(self, recipient: ActorAddress, message: Message) -> None:
        """Deliver `message` to `recipient`; the orchestrator hears of it first."""
        stamped = self.stamp(recipient, message)
        self._send_receipt(flush=True)  # the turn's start is reported before what it sends
        self._system.route(self.orchestrator, stamped)

    def _tell_orchestrator(self, message: Message, flush: bool = False) -> None:
        """Report to the orchestrator; held in the open batch if any, unless `flush` sends the
        batch so far now (with this report last: the record keeps its order)."""
        target = self.orchestrator
        if target is None:
            return
        if self._receipt is not None:  # the turn's start goes first, in the same slot
            self._send_receipt()
        message.sender = self.myAddress
        message.recipient = target
        message.team_id = self.myAddress.team_id
        current = self._current
        if current is not None:
            message.parent_id = message.parent_id or current.id
            message.chain_id = message.chain_id or current.chain_id
        if self._turn_observers:
            observe(message)
        buffer = self._report_buffer
        if buffer is not None and self.intake.in_own_thread():
            buffer.append(message)
            if flush:
                self._report_buffer = []
                self._system.post(target, ReportBatch(reports=tuple(buffer)))
        else:
            self._system.post(target, message)

    def _send_receipt(self, flush: bool = False) -> None:
        """Report the turn's `ReceivedMessage` if it is still held (from the actor's thread)."""
        receipt = self._receipt
        if receipt is not None and self.intake.in_own_thread():
            self._receipt = None
            self._tell_orchestrator(receipt, flush)

    @contextmanager
    def batched_reports(self) -> Iterator[None]:
        """Hold this thread's reports to the orchestrator and send them as one batch.

        For bursts such as the events of a model run: one mailbox slot instead of one per
        event. Only what is reported before any message is sent belongs in a batch, so the
        record keeps its causal order.
        """
        if self._report_buffer is not None:
            yield
            return
        self._report_buffer = []
        try:
            yield
        finally:
            reports, self._report_buffer = self._report_buffer, None
            if reports and self.orchestrator is not None:
                batch = reports[0] if len(reports) == 1 else ReportBatch(reports=tuple(reports))
                self._system.post(self.orchestrator, batch)

    def notify_event(self, event: Any) -> None:
        """Publish an event (any serializable object) to the team's subscribers."""
        self._tell_orchestrator(EventMessage(event=event))

    # ------------------------------------------------------------------ children
    def createActor(
        self, actor_class: type[Any] | str, config: BaseConfig | None = None
    ) -> ActorAddress:
        """Start an actor that joins this actor's team, with this actor as its parent."""
        return self._system.spawn(
            actor_class,
            config,
            orchestrator=self.orchestrator,
            parent=self.myAddress,
        )

    def ask_orchestrator(self, method: str, *args: Any, **kwargs: Any) -> Any:
        """Call a method of the team's orchestrator and wait for the answer (with a timeout)."""
        if self.orchestrator is None:
            raise RuntimeError(f"{self.myAddress.name} is not part of a team")
        return self._system.ask(self.orchestrator, method, *args, **kwargs)

    def stop(self) -> None:
        """Stop after the messages already queued; safe from the actor's own thread.

        The stop counts as owed work until it has happened, so `wait_idle` cannot return
        between the request and the actor leaving its team.
        """
        if self.intake.owe_stop():
            self.actor_ref.stop(block=False)

    def receiveMsg_StopRecursively(self, message: StopRecursively, sender: Any) -> None:
        """Stop the actors this one created, deepest first, then this one (`Team.stop`)."""
        if self.orchestrator is None:
            self.stop()
            return
        team = self._system.team_view(self.orchestrator, self.myAddress)
        team.stop(self.myAddress, recursive=True)

    def describe_busy(self) -> str | None:
        """What the actor is doing right now, for idle diagnostics."""
        return self._busy


def member_at(actor: Actor[Any, Any], path: str) -> Any:
    """The attribute of `actor` at a dotted `path` (`command_registry.descriptors`): what an
    ask names, once the runtime has checked it may be called."""
    return operator.attrgetter(path)(actor)
