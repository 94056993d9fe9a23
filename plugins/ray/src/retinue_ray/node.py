"""`Node`: one host of a system spread over Ray, as its `ActorSystem`'s `Cluster`.

Every host (each Ray host actor, and the driver's own process) runs an ordinary
`ActorSystem` whose cluster is a `Node`. The node carries what that system cannot answer
in its own process to the host an address names, over one `Link` per other host, and
serves what the other hosts send it (`serving.Server`, whose table names each item); the
calls it sent wait for their answers in `calls.Calls`.

Placement (where a new actor starts) is decided by the driver (`choose`); a host asks it.
"""

from __future__ import annotations

import concurrent.futures
import logging
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from retinue import (
    ActorAddress,
    ActorNotFoundError,
    Orchestrator,
    StopMessage,
    Team,
    TeamDirectory,
)
from retinue.llm.model_overrides import add_model_override, remove_model_override

from retinue_ray.calls import Calls, wait_answer
from retinue_ray.links import Item, Link
from retinue_ray.lost import report_lost_members, restore_members
from retinue_ray.placement import Placement, StartSpec
from retinue_ray.serving import Server

if TYPE_CHECKING:
    from pydantic_ai.models import Model
    from retinue import ActorSystem, BaseConfig, Resumption

#: `Placement`, `StartSpec` and `wait_answer` are named here too, where they were before
#: `placement` and `calls` held them.
__all__ = ["Node", "Placement", "StartSpec", "wait_answer"]

logger = logging.getLogger(__name__)


class Node:
    """One host's side of the cluster: links out, what comes in, calls waiting for answers."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._system: ActorSystem | None = None
        self._links: dict[str, Link] = {}
        self._lost: set[str] = set()
        self._lock = threading.Lock()
        self.calls = Calls()
        self._replicas: dict[str, TeamDirectory] = {}
        self._here = threading.local()
        self.closing = False
        self.started = 0  # actors started here, ever: the driver's placement reads it
        #: Start the members of a lost host again elsewhere from the record (the driver's).
        self.restore = False
        self._moved: dict[str, str] = {}
        self._server = Server(self)

    # ------------------------------------------------------------------ to override
    def choose(self, placement: Placement) -> tuple[str, Model | None]:
        """The host a new actor starts on, and the model a test override gives it there."""
        raise NotImplementedError

    def on_host_lost(self, host: str) -> None:
        """A host died: each orchestrator here that had members there records which, lets
        them go from its roster, and tells the team's people."""
        system = self.system
        for address in system.actors():
            actor = system.local_actor(address)
            if isinstance(actor, Orchestrator):
                lost = report_lost_members(system, actor, host, leave=not self.restore)
                if lost and self.restore:  # in the thread that noticed: it has nothing else to do
                    self._restore(actor, host, lost)

    def _restore(self, orchestrator: Orchestrator, host: str, lost: list[ActorAddress]) -> None:
        try:
            back = restore_members(self.system, orchestrator, host, lost)
        except Exception as exc:  # noqa: BLE001 - a restore may fail in any way: it is logged
            logger.warning("the members lost with %s could not be restored: %s", host, exc)
            return
        for address in back.values():
            self.moved(address)

    def moved(self, address: ActorAddress) -> None:
        """`address`'s actor runs on `address.host` now: mail for its old address goes there."""
        with self._lock:
            self._moved[address.agent_id] = address.host or ""

    def current(self, address: ActorAddress) -> ActorAddress:
        """`address`, or its actor's new address if it was restored on another host."""
        host = self._moved.get(address.agent_id)
        if host is None or host == address.host:
            return address
        return address.model_copy(update={"host": host})

    # ------------------------------------------------------------------ the system
    @property
    def system(self) -> ActorSystem:
        system = self._system
        if system is None:
            raise RuntimeError(f"host {self.name} is attached to no actor system")
        return system

    def attach(self, system: ActorSystem) -> str:
        self._system = system
        return self.name

    @property
    def timeout(self) -> float:
        return self.system.ask_timeout

    def add_link(self, link: Link) -> None:
        with self._lock:
            self._links[link.target] = link

    def link_stats(self) -> dict[str, tuple[int, int]]:
        """(batches, items) sent to each other host so far."""
        return {name: (link.batches, link.sent) for name, link in self._links.items()}

    def put(self, host: str | None, item: Item) -> bool:
        """Queue `item` for `host`; False when it is lost or unknown."""
        link = self._links.get(host) if host is not None else None
        return link is not None and link.put(item)

    def link_to(self, host: str | None) -> Link | None:
        """The link to `host`, if there is one."""
        return self._links.get(host or "")

    def receive(self, source: str, batch: Sequence[Item]) -> None:
        """Take in a batch from `source`, in order; never blocks on an actor (`Server`)."""
        self._server.receive(source, batch)

    # ------------------------------------------------------------------ Cluster: start
    def place(
        self,
        actor_class: type[Any],
        config: BaseConfig,
        *,
        orchestrator: ActorAddress | None,
        parent: ActorAddress | None,
    ) -> str:
        host, model = self.choose(Placement(actor_class, config, orchestrator, parent))
        self._here.model = model  # for `start`, which follows in this thread
        return host

    def start(
        self,
        actor_class: type[Any],
        config: BaseConfig,
        address: ActorAddress,
        *,
        orchestrator: ActorAddress | None,
        parent: ActorAddress | None,
        resumption: Resumption | None,
    ) -> None:
        model: Model | None = getattr(self._here, "model", None)
        self._here.model = None
        spec = StartSpec(actor_class, config, address, orchestrator, parent, resumption, model)
        if address.host == self.name:
            self.start_here(spec)
            return
        future = self.request(address.host, "start", spec)
        try:
            wait_answer(future, 2 * self.timeout, f"starting {address.name} on {address.host}")
        except ActorNotFoundError:
            if orchestrator is not None:  # it never started: it leaves the team again
                stop = StopMessage(  # unless a resume brought it: then the next one tries
                    sender=address, recipient=orchestrator, shutdown=resumption is not None
                )
                self.system.post(orchestrator, stop)
            raise

    def start_here(self, spec: StartSpec) -> None:
        """Start an admitted actor in this host's system (on the test's model, if given)."""
        override = None
        if spec.model is not None:
            override = add_model_override(
                spec.model, role=spec.config.role, team=spec.address.team_id
            )
        try:
            self.system.start_actor(
                spec.actor_class,
                spec.config,
                spec.address,
                orchestrator=spec.orchestrator,
                parent=spec.parent,
                resumption=spec.resumption,
            )
        finally:
            if override is not None:
                remove_model_override(override)
        self.started += 1

    # ------------------------------------------------------------------ Cluster: deliver
    def post(self, recipient: ActorAddress, message: Any, *, bounce: bool) -> bool:
        recipient = self.current(recipient)
        if recipient.host == self.name:  # restored here
            return self.system.post(recipient, message, bounce=bounce)
        return self.put(recipient.host, ("post", recipient, message, bounce))

    def send(self, sender: ActorAddress | None, recipient: ActorAddress, message: Any) -> None:
        recipient = self.current(recipient)
        if recipient.host == self.name:
            self.system.send(recipient, message, sender)
        elif not self.put(recipient.host, ("send", sender, recipient, message)):
            raise ActorNotFoundError(f"{recipient.name} is not running (its host is gone)")

    # ------------------------------------------------------------------ Cluster: call
    def call(
        self, address: ActorAddress, method: str, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> concurrent.futures.Future[Any]:
        address = self.current(address)
        if address.host == self.name:
            return self.system.ask_future(address, method, *args, **kwargs)
        return self.request(address.host, "ask", (address, method, args, kwargs))

    def tell(
        self, address: ActorAddress, method: str, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> None:
        address = self.current(address)
        if address.host == self.name:
            self.system.tell(address, method, *args, **kwargs)
        elif not self.put(address.host, ("tell", address, method, args, kwargs)):
            raise ActorNotFoundError(f"{address.name} is not running (its host is gone)")

    def stop_actor(self, address: ActorAddress, timeout: float) -> bool:
        address = self.current(address)
        if address.host == self.name:
            return self.system.stop_actor(address, timeout)
        future = self.request(address.host, "stop", (address, timeout))
        try:
            return bool(future.result(timeout + self.timeout))
        except ActorNotFoundError:
            return True  # its host is gone, and it with it
        except concurrent.futures.TimeoutError:
            return False

    def request(
        self, host: str | None, kind: str, args: tuple[Any, ...]
    ) -> concurrent.futures.Future[Any]:
        """Send a call to `host`; its answer (or error) arrives in the future."""
        call_id, future = self.calls.open(host or "")
        if not self.put(host, ("call", call_id, kind, args)):
            self.calls.settle(call_id, False, ActorNotFoundError(f"host {host} is gone"))
        return future

    # ------------------------------------------------------------------ Cluster: team
    def team_view(self, orchestrator: ActorAddress, member: ActorAddress) -> Team:
        from retinue_ray.team import RemoteTeam

        return RemoteTeam(self, orchestrator, member)

    def directory_of(self, orchestrator: ActorAddress) -> TeamDirectory:
        """The latest directory of the team `orchestrator` runs, kept here as it changes."""
        team_id = orchestrator.team_id or orchestrator.agent_id
        directory = self._replicas.get(team_id)
        if directory is None:
            future = self.request(orchestrator.host, "watch", (orchestrator,))
            self.install(team_id, wait_answer(future, self.timeout, "the team's directory"))
            directory = self._replicas[team_id]
        return directory

    def refresh(self, orchestrator: ActorAddress) -> TeamDirectory:
        """The directory as the orchestrator has it now (after what this host sent it)."""
        team_id = orchestrator.team_id or orchestrator.agent_id
        future = self.request(orchestrator.host, "directory", (orchestrator,))
        self.install(team_id, wait_answer(future, self.timeout, "the team's directory"))
        return self._replicas[team_id]

    def install(self, team_id: str, directory: TeamDirectory) -> None:
        """Keep `directory` unless a newer one is kept already (they may cross)."""
        with self._lock:
            kept = self._replicas.get(team_id)
            if kept is None or directory.version > kept.version:
                self._replicas[team_id] = directory

    # ------------------------------------------------------------------ Cluster: quiet
    def actors(self) -> list[ActorAddress]:
        return []

    def wait_idle(self, timeout: float) -> bool:
        return self.system.tracker.wait(timeout)

    def shutdown(self, timeout: float) -> bool:
        return True

    # ------------------------------------------------------------------ failures
    def failed(self, target: str, items: list[Item], lost: bool, reason: str = "") -> None:
        """Settle items that could not reach `target` (gone if `lost`), then report a loss."""
        for item in items:
            try:
                self._undeliverable(target, item, lost, reason)
            except Exception as exc:  # noqa: BLE001 - settling may fail in any way: settle the rest
                logger.warning(
                    "host %s could not settle an item for %s: %s", self.name, target, exc
                )
        if lost:
            self.host_lost(target)

    def _undeliverable(self, target: str, item: Item, lost: bool, reason: str) -> None:
        kind = item[0]
        if kind == "post" and item[3]:
            message = item[2]
            self.system.dead_letter(getattr(message, "sender", None), item[1], message)
        elif kind == "call" and lost:
            self.calls.settle(item[1], False, ActorNotFoundError(f"host {target} is gone"))
        elif kind == "call":
            why = f"the call could not be sent to host {target}: {reason}"
            self.calls.settle(item[1], False, TypeError(why))
        elif kind == "result" and not lost:
            error = RuntimeError(f"the answer from host {self.name} could not be sent back")
            self.put(target, ("result", item[1], False, error))
        elif kind in ("send", "tell"):
            logger.warning("host %s: a %s to %s was lost with its host", self.name, kind, target)

    def host_lost(self, host: str) -> None:
        """Stop sending to `host`: what waits for it fails now, and later mail is dead letters."""
        with self._lock:
            if host in self._lost or not host:
                return
            self._lost.add(host)
            link = self._links.get(host)
            waiting = self.calls.waiting_on(host)
        if link is not None:
            self.failed(host, link.fail(), lost=True)
        for call_id in waiting:
            self.calls.settle(call_id, False, ActorNotFoundError(f"host {host} was lost"))
        if not self.closing:
            logger.warning("host %s: host %s was lost", self.name, host)
            self.on_host_lost(host)

    def close(self) -> None:
        """Send nothing more; the links end once empty."""
        self.closing = True
        for link in list(self._links.values()):
            link.close()
        self._server.close()
