"""`ActorSystem`: the in-process, pykka-threaded implementation of the `Runtime` protocol.

It starts actors, carries their messages, asks and tells, waits for quiet and shuts down;
the steps of a start (`spawning`), asks and tells to an actor here (`asks`), the list of
actors running here (`local_actors`), the proxies (`proxies`), dead letters
(`dead_letters`) and the shutdown procedure (`shutdown`) live in modules of their own.
Given a `Cluster`, it is one host of several: what its own process cannot answer (an
address whose `host` is another) goes to the cluster, and nothing else changes.
"""

from __future__ import annotations

import concurrent.futures
import logging
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

import pykka

from retinue.actors import runtime
from retinue.actors.address import ActorAddress
from retinue.actors.asks import ask_future_here, ask_here, tell_here
from retinue.actors.cluster import Cluster
from retinue.actors.config import BaseConfig
from retinue.actors.dead_letters import report_dead_letter
from retinue.actors.errors import AskTimeoutError, IdleTimeoutError
from retinue.actors.local_actors import LocalActors
from retinue.actors.messages import EventMessage, Message, ProxyCall, SentMessage, StartMessage
from retinue.actors.proxies import AskProxy, TellProxy
from retinue.actors.resumption import Resumption
from retinue.actors.runtime_api import Runtime, TeamOwner, TeamViews, team_owner
from retinue.actors.services import TeamServices
from retinue.actors.shutdown import stop_all
from retinue.actors.spawning import (
    admit,
    name_and_id,
    new_address,
    resolve_actor_class,
    start_here,
    start_message,
)
from retinue.actors.turns import observe
from retinue.validation import check_timeout

if TYPE_CHECKING:
    from retinue.actors.actor import Actor
    from retinue.store import Store
    from retinue.team.view import Team

T = TypeVar("T")

#: `resolve_actor_class` lives with the other steps of a start and still reads from here.
__all__ = ["ActorSystem", "resolve_actor_class"]

logger = logging.getLogger(__name__)

#: Messages that report to the orchestrator rather than converse; they get no `SentMessage`.
_REPORTS = (SentMessage, EventMessage, StartMessage)


class ActorSystem(Runtime):
    """The runtime for one or more teams of actors in this process (implements `Runtime`)."""

    def __init__(
        self,
        *,
        ask_timeout: float = 30.0,
        plugin_manager: Any = None,
        store: Store | str | Path | None = None,
        cluster: Cluster | None = None,
    ) -> None:
        #: Seconds an ask waits for its answer: above 0 and finite, or every ask would fail.
        self.ask_timeout = check_timeout("ActorSystem", "ask_timeout", ask_timeout)
        #: Where every team of this system is recorded (None: nowhere). A path or URL given
        #: here is opened now (a `StoreError` if it cannot be) and closed at shutdown.
        self.store: Store | None = None
        self._owns_store = False
        if store is not None:  # the store layer (sqlite3 with it) loads only when it is used
            from retinue.store import Store, open_store

            if isinstance(store, Store):
                self.store = store
            else:
                self.store, self._owns_store = open_store(store), True
        #: The pluggy manager agents of this system take their cards from; None: discover.
        self.plugin_manager = plugin_manager
        #: The team services running here (`retinue.team.team_service`), by class and key.
        self.services = TeamServices()
        #: How each team started here shows itself to its members, by the team's id.
        self._team_views: dict[str, TeamViews] = {}
        self.tracker = runtime.WorkTracker()
        self._local = LocalActors()
        self._shutting_down = False
        #: The hosts beyond this process (None: every actor runs here), and this host's name.
        self.cluster = cluster
        self.host: str | None = cluster.attach(self) if cluster is not None else None

    # ------------------------------------------------------------------ creation
    def createActor(
        self, actor_class: type[Any] | str, config: BaseConfig | None = None
    ) -> ActorAddress:
        """Start an actor outside any team (an `Orchestrator` starts a team of its own)."""
        return self.spawn(actor_class, config, orchestrator=None, parent=None)

    def spawn(
        self,
        actor_class: type[Any] | str,
        config: BaseConfig | None,
        *,
        orchestrator: ActorAddress | None,
        parent: ActorAddress | None,
        resumption: Resumption | None = None,
    ) -> ActorAddress:
        """Start an actor; in a team, the orchestrator admits it under a unique name.

        With `resumption`, the actor comes back under its old name and id and takes back
        its checkpointed state and events before its first message (see `Resumption`).
        """
        if self._shutting_down:
            raise RuntimeError("the actor system is shutting down")
        cls = resolve_actor_class(actor_class)
        config, name, agent_id = name_and_id(cls, config, resumption)
        address = new_address(
            self, cls, config, name, agent_id, orchestrator=orchestrator, parent=parent
        )
        if address.team_id == agent_id:  # it starts a team: how its members see it
            self._team_views[agent_id] = cast("type[TeamOwner]", cls).team_views
        if orchestrator is not None:
            address = admit(self, orchestrator, address, parent, resumed=resumption is not None)
        if address.name != config.name:
            config = config.model_copy(update={"name": address.name})
        if orchestrator is not None:  # announced first, so the record reads in causal order
            start = start_message(cls, config, address, orchestrator, parent)
            self.post(orchestrator, start)
            observe(start)  # a hire, to the turn that made it (if observed)
        cluster = self.cluster
        starter = cluster.start if cluster is not None else self.start_actor  # on its host
        starter(
            cls, config, address, orchestrator=orchestrator, parent=parent, resumption=resumption
        )
        return address

    def start_actor(
        self,
        actor_class: type[Any],
        config: BaseConfig,
        address: ActorAddress,
        *,
        orchestrator: ActorAddress | None,
        parent: ActorAddress | None,
        resumption: Resumption | None,
    ) -> None:
        """Start an actor admitted under `address` in this process (the last step of
        `spawn`; a `Cluster` calls it for the actors it placed on this host).

        When its start fails, it leaves its team again and the error is raised.
        """
        cls = resolve_actor_class(actor_class)
        actor = start_here(
            self,
            cls,
            config,
            address,
            orchestrator=orchestrator,
            parent=parent,
            resumption=resumption,
        )
        if actor is not None:
            self._local.add(actor)

    @property
    def shutting_down(self) -> bool:
        """Whether `shutdown` has begun: no new actor starts, queued mail is dropped, and turns
        ending now end cleanly with nobody told."""
        return self._shutting_down

    def forget(self, actor: Actor[Any, Any]) -> None:
        """`actor` has stopped: it is no longer listed (called from its own thread)."""
        self._local.forget(actor)

    def elsewhere(self, address: ActorAddress) -> bool:
        """Whether `address` names an actor on another host of this system's cluster."""
        host = address.host
        return host is not None and host != self.host and self.cluster is not None

    def local_actor(self, address: ActorAddress) -> Actor[Any, Any] | None:
        """The live actor at `address` if it runs in this process (a `Cluster` serves the
        calls of other hosts with it)."""
        return runtime.lookup(address.agent_id)

    # ------------------------------------------------------------------ delivery
    def post(
        self, recipient: ActorAddress, message: Any, reply_to: Any = None, *, bounce: bool = False
    ) -> bool:
        """Queue `message` in the recipient's mailbox; False when it is not running.

        For an actor on another host it is queued for that host (`bounce`: a delivery whose
        recipient turns out stopped there comes back here as a dead letter).
        """
        actor = runtime.lookup(recipient.agent_id)
        if actor is not None:
            return actor.intake.offer(message, reply_to)
        if self.cluster is not None and self.elsewhere(recipient):
            return self.cluster.post(recipient, message, bounce=bounce)
        return False

    def route(self, orchestrator: ActorAddress | None, message: Message) -> None:
        """Deliver an addressed message, telling the orchestrator first."""
        recipient = message.recipient
        assert recipient is not None
        if (
            orchestrator is not None
            and recipient != orchestrator
            and not isinstance(message, _REPORTS)
        ):
            # The report names the conversation's own sender and recipient, as subscribers read it.
            report = SentMessage(message=message).addressed(
                message.sender,
                recipient,
                message.team_id,
                parent_id=message.parent_id,
                chain_id=message.chain_id,
            )
            self.post(orchestrator, report)
        if not self.post(recipient, message, bounce=True):
            self.dead_letter(message.sender, recipient, message)
        elif logger.isEnabledFor(logging.INFO) and not isinstance(message, _REPORTS):
            sender = message.sender.name if message.sender is not None else "outside"
            logger.info("%s -> %s %s", sender, recipient.name, message.log_text())

    def send(
        self, recipient: ActorAddress, message: Message, sender: ActorAddress | None = None
    ) -> None:
        """Send from code outside the actors (a script, a test); `sender` may be None."""
        self.post_from_outside(sender, recipient, message)

    def post_from_outside(
        self, sender: ActorAddress | None, recipient: ActorAddress, message: Message
    ) -> None:
        """A send from code that is not a running actor (a script, a test)."""
        if self.cluster is not None and self.elsewhere(recipient):
            self.cluster.send(sender, recipient, message)  # stamped and routed on its host
            return
        stamped = message.addressed(sender, recipient, recipient.team_id, fresh=True)
        target = runtime.lookup(recipient.agent_id)
        orchestrator = target.orchestrator if target is not None else None
        self.route(orchestrator, stamped)

    def dead_letter(
        self, sender: ActorAddress | None, recipient: ActorAddress, message: Message
    ) -> None:
        """Report an undeliverable message, and answer its sender when it is owed a notice."""
        report_dead_letter(self, sender, recipient, message)

    # ------------------------------------------------------------------ asks and tells
    def ask(
        self,
        address: ActorAddress,
        method: str,
        *args: Any,
        timeout: float | None = None,
        **kwargs: Any,
    ) -> Any:
        """Call `method` on the actor and wait.

        A self-ask from the actor's own thread runs inline instead of deadlocking; one from
        work the actor is waiting for (a tool of its run) raises `SelfAskError` at once.
        """
        wait = self.ask_timeout if timeout is None else timeout
        if self.cluster is not None and self.elsewhere(address):
            remote = self.cluster.call(address, method, args, kwargs)
            try:
                return remote.result(timeout=wait)
            except concurrent.futures.TimeoutError:
                raise AskTimeoutError(
                    f"{address.name}.{method}() gave no answer within {wait:g}s"
                ) from None
        return ask_here(address, ProxyCall(method, args, kwargs), wait=wait)

    def ask_future(
        self, address: ActorAddress, method: str, *args: Any, **kwargs: Any
    ) -> concurrent.futures.Future[Any]:
        """Ask without blocking: await `asyncio.wrap_future(...)` from async code."""
        if self.cluster is not None and self.elsewhere(address):
            return self.cluster.call(address, method, args, kwargs)
        return ask_future_here(address, ProxyCall(method, args, kwargs))

    def tell(self, address: ActorAddress, method: str, *args: Any, **kwargs: Any) -> None:
        """Call `method` on the actor without waiting; errors go to its orchestrator."""
        if self.cluster is not None and self.elsewhere(address):
            self.cluster.tell(address, method, args, kwargs)
            return
        tell_here(address, ProxyCall(method, args, kwargs, reply=False))

    def proxy_ask(
        self,
        address: ActorAddress,
        actor_class: type[T] | None = None,
        timeout: float | None = None,
    ) -> T:
        """A proxy whose method calls run in the actor and return their results."""
        return cast(T, AskProxy(self, address, timeout))

    def proxy_tell(self, address: ActorAddress, actor_class: type[T] | None = None) -> T:
        """A proxy whose method calls run in the actor; nothing is waited for."""
        return cast(T, TellProxy(self, address))

    def team_view(self, orchestrator: ActorAddress, member: ActorAddress) -> Team:
        """The team of `member` as it reads and changes it (`OrchestratorTeam` here)."""
        if self.cluster is not None and self.elsewhere(orchestrator):
            return self.cluster.team_view(orchestrator, member)
        views = self._team_views.get(orchestrator.agent_id)
        if views is None:  # a team another system of this process started
            owner = team_owner(runtime.lookup(orchestrator.agent_id))
            if owner is None:
                raise RuntimeError(f"no team of {orchestrator.name} runs in this process")
            views = type(owner).team_views
        return views(self, orchestrator, member)

    # ------------------------------------------------------------------ quiet and stop
    def actors(self) -> list[ActorAddress]:
        """Addresses of the running actors of this system (on every host it can list)."""
        here = self._local.addresses()
        return here + self.cluster.actors() if self.cluster is not None else here

    def wait_idle(self, timeout: float = 30.0) -> None:
        """Return once every mailbox is empty and no handler runs; raise on timeout."""
        if any(a.intake.in_own_thread() for a in self._local.snapshot()):
            raise RuntimeError("wait_idle() called from an actor's own thread would never return")
        if self.cluster is not None:
            if self.cluster.wait_idle(timeout):
                return
        elif self.tracker.wait(timeout):
            return
        names = ", ".join(self._local.busy()) or f"{self.tracker.pending} unit(s) of work in flight"
        raise IdleTimeoutError(f"not idle after {timeout:g}s: {names}")

    def stop_actor(self, address: ActorAddress, timeout: float | None = None) -> bool:
        """Stop one actor after its queued messages; never waits on itself."""
        if self.cluster is not None and self.elsewhere(address):
            return self.cluster.stop_actor(address, timeout or self.ask_timeout)
        actor = runtime.lookup(address.agent_id)
        if actor is None:
            return True
        if actor.intake.in_own_thread():
            actor.stop()
            return True
        # Owed until the actor has left, as `Actor.stop` owes it: past `timeout` the stop
        # still happens, and `wait_idle` must not return before it has.
        actor.intake.owe_stop()
        try:
            return bool(actor.actor_ref.stop(block=True, timeout=timeout or self.ask_timeout))
        except pykka.Timeout:
            return False

    def shutdown(self, timeout: float = 10.0) -> bool:
        """Stop every actor, dropping queued mail; True if all stopped within `timeout`.

        Returns by the deadline whatever the actors do: the runs in flight are interrupted
        (even one blocked in a sync tool is abandoned), each actor is told to stop, and its
        thread is joined, so the process can exit right after. Once the deadline has passed
        nothing more is waited for: an actor still in a handler then is logged, and its
        thread gets one more bounded wait when the interpreter exits.
        """
        deadline = time.monotonic() + timeout
        self._shutting_down = True
        self._local.close()
        elsewhere = True
        if self.cluster is not None:  # first: their members' last reports still come here
            elsewhere = self.cluster.shutdown(max(0.0, deadline - time.monotonic()))
        actors = self._local.remaining()
        stopped = stop_all(actors, self.tracker, self._local.all_stopped, deadline) and elsewhere
        if self._owns_store and self.store is not None and stopped:
            self.store.close()  # one still running may yet record: left open then
        return stopped
