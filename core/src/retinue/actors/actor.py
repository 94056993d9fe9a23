"""`Actor`: the base every retinue actor is built on (the spec's `Akgent`).

A pykka thread actor with typed config and state, `receiveMsg_<Type>` dispatch along the
message class's MRO, and the rule that a failing handler never kills the actor. It uses only
pykka's public surface: its inbox is a retinue `Mailbox` (given through the hook pykka's actor
classes create their inbox with), it stops through `ActorRef.stop()`, and the kernel's start
and stop bookkeeping runs around `on_start` / `on_stop` (see `Actor.__init__`).

This module holds its construction, lifecycle and children; its other parts, each a base
class of the next, are in modules of their own: what it sends and reports (`sending`), its
hand in its mailbox (`mail_handling`), its state and checkpoints, resume included
(`checkpoints`), and its turns (`turn_handling`). One class in the end, so a turn costs no
more calls than before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from retinue.actors import runtime
from retinue.actors.address import ActorAddress
from retinue.actors.checkpoints import StateT
from retinue.actors.config import BaseConfig
from retinue.actors.errors import describe_error
from retinue.actors.intake import Intake
from retinue.actors.mailbox import Mailbox
from retinue.actors.messages import StartFailedMessage, StopMessage, StopRecursively
from retinue.actors.turn_handling import TurnHandlingActor, member_at
from retinue.actors.turns import reports_turns

if TYPE_CHECKING:
    from retinue.actors.resumption import Resumption
    from retinue.actors.runtime_api import Runtime
    from retinue.actors.system import ActorSystem

ConfigT = TypeVar("ConfigT", bound=BaseConfig)

#: `StateT` and `member_at` are defined with the parts that use them and still read from here.
__all__ = ["Actor", "ConfigT", "StateT", "member_at"]


class Actor(TurnHandlingActor[StateT], Generic[ConfigT, StateT]):
    """Base actor: config, state, dispatch, events, children, failure survival."""

    use_daemon_thread = True
    is_user_proxy: ClassVar[bool] = False
    config_class: ClassVar[type[BaseConfig]] = BaseConfig
    """The config this actor is built from: a card validates a config given as data with it."""

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
        self.mailbox = mailbox
        # pykka calls `self.on_start()` and `self.on_stop()` in the actor's thread. The
        # kernel's bookkeeping has to run around a subclass's hooks of those names, so on
        # this instance the two names lead to the kernel, which calls the class's hooks.
        self.__dict__["on_start"] = self._begin
        self.__dict__["on_stop"] = self._end
        self.config: ConfigT = config
        self._system = system
        self.myAddress = address
        self.orchestrator = orchestrator
        self.parent = parent
        self.state = self.default_state()
        self._published_state = None
        self._current = None
        self._joined = []
        self._busy = None
        #: Where messages enter it: what the runtime and its shutdown use of it.
        self.intake = Intake(mailbox, system.tracker)
        self._report_buffer = None
        self.reports_turns = False
        self._receipt = None
        self._resumption = resumption
        self._resumed = resumption is not None
        runtime.register(self)

    @property
    def system(self) -> Runtime:
        """The runtime this actor runs in: all an agent or a card may ask of it."""
        return self._system

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
