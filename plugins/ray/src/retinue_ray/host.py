"""`Host`: the Ray actor that runs one host of a team: an `ActorSystem` with many agents.

One Ray actor per agent would cost a process each; a host costs one process and runs as
many agents as it is given, on retinue's own threads, reaching the other hosts through
its `HostNode`. The driver opens a host for its system and closes it at shutdown; a host
the driver keeps (`RayCluster(reuse=True)`) is opened again by the next system.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from retinue import ActorAddress, ActorSystem

from retinue_ray.links import HostLostError, Item, PullLink, PushLink
from retinue_ray.node import Node, Placement, wait_answer

if TYPE_CHECKING:
    from pydantic_ai.models import Model

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class HostSettings:
    """What a host is opened with: the driver's name and its system's ask timeout."""

    driver: str
    ask_timeout: float


def call_host(ref: Any) -> Any:
    """`ray.get` of a call to a host, a dead host raising `HostLostError`."""
    import ray
    from ray.exceptions import ActorUnavailableError, RayActorError

    try:
        return ray.get(ref)
    except (RayActorError, ActorUnavailableError) as exc:
        raise HostLostError(str(exc)) from exc


class HostNode(Node):
    """A host's side: pushes to the other hosts, the driver pulls what is for it."""

    def __init__(self, name: str, settings: HostSettings, peers: Mapping[str, Any]) -> None:
        super().__init__(name)
        self.driver = settings.driver
        self._pull: PullLink | None = None
        self._peers = dict(peers)

    def attach(self, system: ActorSystem) -> str:
        name = super().attach(system)
        self._pull = PullLink(self.driver, system.tracker)
        self.add_link(self._pull)
        for peer, handle in self._peers.items():
            self.add_link(PushLink(peer, system.tracker, pusher(handle, self.name), self.failed))
        return name

    @property
    def pull(self) -> PullLink:
        assert self._pull is not None, "a host is attached before it is pulled from"
        return self._pull

    def choose(self, placement: Placement) -> tuple[str, Model | None]:
        future = self.request(self.driver, "place", tuple(placement))
        placed: tuple[str, Model | None] = wait_answer(future, self.timeout, "placing an actor")
        return placed


def pusher(handle: Any, source: str) -> Any:
    def push(batch: Sequence[Item]) -> None:
        call_host(handle.receive.remote(source, list(batch)))

    return push


class Host:
    """The Ray actor class of a host (made remote by the driver: `ray.remote(Host)`)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._node: HostNode | None = None
        self._system: ActorSystem | None = None
        self._lock = threading.Lock()
        logging.basicConfig(level=logging.WARNING)

    def ping(self) -> str:
        """The host's name, once it is up."""
        return self.name

    def where(self) -> tuple[int, str]:
        """This host's process id and the id of the Ray node it runs on."""
        import os

        import ray

        return os.getpid(), ray.get_runtime_context().get_node_id()

    def stats(self) -> dict[str, tuple[int, int]]:
        """(batches, items) this host has sent to each other host (and the driver)."""
        node = self._node
        return node.link_stats() if node is not None else {}

    def open(self, settings: HostSettings, peers: Mapping[str, Any]) -> None:
        """Start a fresh `ActorSystem` here for the driver's system; `peers`: the other hosts."""
        with self._lock:
            if self._system is not None:
                raise RuntimeError(f"host {self.name} already serves an actor system")
            node = HostNode(self.name, settings, peers)
            self._system = ActorSystem(ask_timeout=settings.ask_timeout, cluster=node)
            self._node = node

    def receive(self, source: str, batch: list[Item]) -> None:
        """Take in a batch from host `source` (in order)."""
        node = self._node
        if node is not None:
            node.receive(source, batch)

    def take(self, ack: int, wait: float) -> tuple[int, list[Item], tuple[int, int]]:
        """The driver's pull: the next batch for it, and this host's load (running, started)."""
        node = self._node
        if node is None:
            return ack, [], (0, 0)
        seq, batch = node.pull.take(ack, wait)
        system = self._system
        running = len(system.actors()) if system is not None else 0
        return seq, batch, (running, node.started)

    def quiet(self, wait: float) -> tuple[bool, int]:
        """Whether nothing is owed here (waiting up to `wait` for it), and the activity mark."""
        system = self._system
        if system is None:
            return True, 0
        idle = system.tracker.wait(wait) if wait > 0 else system.tracker.pending <= 0
        return idle, system.tracker.activity

    def actors(self) -> list[ActorAddress]:
        """The actors running here."""
        system = self._system
        return system.actors() if system is not None else []

    def moved(self, address: ActorAddress) -> None:
        """The driver says this actor was restored on `address.host`: send its mail there."""
        node = self._node
        if node is not None:
            node.moved(address)

    def lost(self, host: str) -> None:
        """The driver says `host` died: stop sending to it."""
        node = self._node
        if node is not None:
            node.host_lost(host)

    def close(self, timeout: float) -> bool:
        """Shut this host's system down by `timeout`, hand its last reports to the driver,
        and be ready to be opened again. True when every actor stopped in time."""
        import time

        deadline = time.monotonic() + timeout
        with self._lock:
            system, node = self._system, self._node
            if system is None or node is None:
                return True
            stopped = system.shutdown(max(0.0, deadline - time.monotonic()))
            node.pull.flush(max(0.1, deadline - time.monotonic()))
            node.close()
            self._system = self._node = None
        return stopped
