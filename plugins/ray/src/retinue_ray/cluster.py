"""`RayCluster`: the driver's side of a team spread over Ray hosts.

    system = ActorSystem(cluster=RayCluster(address="auto", hosts=2))

The driver's process is itself a host (named `driver`): by default the team's
orchestrator and the person's proxy run there, so subscribers, the record and the console
stay in the driver, and every agent runs on a Ray host. The driver starts the hosts (Ray
actors, spread over the cluster's nodes), decides where each new actor starts, pulls what
the hosts send it, tells what idle means across all of them, reports a host that dies,
and closes them all at shutdown.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from retinue import ActorAddress, ActorSystem, Orchestrator

from retinue_ray.host import Host, HostSettings, call_host, pusher
from retinue_ray.links import HostLostError, PushLink
from retinue_ray.node import Node, Placement

if TYPE_CHECKING:
    from pydantic_ai.models import Model
    from retinue import BaseConfig

logger = logging.getLogger(__name__)

DRIVER = "driver"
#: How long the hosts may take to start (a Ray worker process each).
START_TIMEOUT = 120.0
#: How long one pull waits for something to arrive before asking again.
PULL_WAIT = 0.5
#: The card metadata key naming the host (or host tag) a role's members start on.
HOST_KEY = "host"
#: Hosts kept for the next `RayCluster(reuse=True)` of this process, by name: a Ray actor
#: lives while a handle to it does.
_KEPT: dict[str, Any] = {}


def _alive(handle: Any) -> bool:
    try:
        call_host(handle.ping.remote())
    except HostLostError:
        return False
    return True


class RayCluster(Node):
    """A retinue `Cluster` of `hosts` Ray actors; the driver's process is one more host.

    - `address`: passed to `ray.init` (`"auto"`, `"ray://head:10001"`, or None: a local
      Ray started for this process); an already initialised Ray is used as it is.
    - `hosts`: how many hosts, or their names, or names with tags (`{"gpu-1": ["gpu"]}`).
    - `orchestrator`, `people`: where a team's orchestrator and the person's proxies start
      (`"driver"`, or a host's name).
    - `placement`: role → host name or tag; a card's `metadata["host"]` does the same.
      Anything else starts on the least-loaded host.
    - `host_options`: Ray actor options for each host (`resources`, `num_cpus`, ...).
    - `init_options`: more keyword arguments for `ray.init` (`runtime_env`, ...).
    - `reuse`: keep the hosts when the system shuts down, for the next `RayCluster` of this
      process with the same host names (a test session starts its hosts once).
    - `restore`: when a host dies, start its members again on the other hosts from the
      team's record (needs `ActorSystem(store=...)`; see `retinue_ray.lost`).
    """

    def __init__(
        self,
        address: str | None = None,
        hosts: int | Sequence[str] | Mapping[str, Sequence[str]] = 2,
        *,
        orchestrator: str = DRIVER,
        people: str = DRIVER,
        placement: Mapping[str, str] | None = None,
        host_options: Mapping[str, Any] | None = None,
        init_options: Mapping[str, Any] | None = None,
        reuse: bool = False,
        restore: bool = False,
    ) -> None:
        super().__init__(DRIVER)
        self.restore = restore
        self._tags = _host_tags(hosts)
        for label, where in (("orchestrator", orchestrator), ("people", people)):
            if where != DRIVER and where not in self._tags:
                raise ValueError(f"{label}={where!r} names no host; hosts: {self._known()}")
        self._address = address
        self._orchestrator_host = orchestrator
        self._people_host = people
        self._placement = dict(placement or {})
        for role, where in self._placement.items():
            self._hosts_for(where, f"placement[{role!r}]")
        self._host_options = dict(host_options or {})
        self._init_options = dict(init_options or {})
        self._reuse = reuse
        self._handles: dict[str, Any] = {}
        self._pullers: list[threading.Thread] = []
        self._placed: dict[str, int] = dict.fromkeys(self._tags, 0)
        self._load: dict[str, tuple[int, int]] = dict.fromkeys(self._tags, (0, 0))
        self._owns_ray = False
        self._closed: set[str] = set()
        self._reported: dict[str, threading.Event] = {}

    @property
    def hosts(self) -> list[str]:
        """The hosts' names (the driver's process not included), lost ones too."""
        return list(self._tags)

    @property
    def live_hosts(self) -> list[str]:
        """The hosts still running."""
        return [name for name in self._tags if name not in self._lost]

    def handle(self, host: str) -> Any:
        """The Ray actor handle of a host (to kill it in a failure test, say)."""
        return self._handles[host]

    # ------------------------------------------------------------------ start
    def attach(self, system: ActorSystem) -> str:
        super().attach(system)
        import ray
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        if not ray.is_initialized():
            ray.init(address=self._address, **self._init_options)
            self._owns_ray = True
        remote_host = ray.remote(Host)
        listed: list[dict[str, Any]] = ray.nodes()  # type: ignore[no-untyped-call]
        nodes = sorted(n["NodeID"] for n in listed if n.get("Alive"))
        for index, name in enumerate(self._tags):
            handle = _KEPT.get(name) if self._reuse else None
            if handle is not None and not _alive(handle):  # a kept host died: a new one
                del _KEPT[name]
                handle = None
            if handle is None:
                options: dict[str, Any] = {
                    "num_cpus": 0,
                    "max_concurrency": 64,
                    "max_restarts": 0,
                    # round robin over the nodes, so two hosts on two nodes are one each
                    "scheduling_strategy": NodeAffinitySchedulingStrategy(
                        nodes[index % len(nodes)], soft=False
                    )
                    if nodes
                    else "SPREAD",
                }
                options.update(self._host_options)
                handle = remote_host.options(**options).remote(name)
                if self._reuse:  # held here, so the host outlives this cluster object
                    _KEPT[name] = handle
            self._handles[name] = handle
        try:
            ray.get([h.ping.remote() for h in self._handles.values()], timeout=START_TIMEOUT)
            settings = HostSettings(driver=DRIVER, ask_timeout=system.ask_timeout)
            opened = [
                handle.open.remote(
                    settings, {peer: h for peer, h in self._handles.items() if peer != name}
                )
                for name, handle in self._handles.items()
            ]
            ray.get(opened, timeout=START_TIMEOUT)
        except BaseException:  # the system is not made: nothing of it is left running
            for name, handle in self._handles.items():
                ray.kill(handle)
                _KEPT.pop(name, None)
            if self._owns_ray:
                ray.shutdown()
            raise
        for name, handle in self._handles.items():
            self.add_link(PushLink(name, system.tracker, pusher(handle, DRIVER), self.failed))
            puller = threading.Thread(
                target=self._pull, args=(name, handle), name=f"retinue-ray pull {name}", daemon=True
            )
            puller.start()
            self._pullers.append(puller)
        return DRIVER

    def _pull(self, name: str, handle: Any) -> None:
        """Take in what host `name` sends the driver, batch after batch, until closed."""
        ack = 0
        while not self.closing or not self._closed_host(name):
            try:
                seq, batch, load = call_host(handle.take.remote(ack, PULL_WAIT))
            except HostLostError:
                self.host_lost(name)
                return
            except Exception as exc:  # noqa: BLE001 - any transient failure: logged, asked again
                if self.closing:
                    return
                logger.warning("pulling from host %s failed: %s", name, exc)
                time.sleep(PULL_WAIT)  # a transient failure: ask again shortly
                continue
            if batch:
                self.receive(name, batch)
            ack = seq
            self._load[name] = load

    def _closed_host(self, name: str) -> bool:
        return name in self._closed or name in self._lost

    # ------------------------------------------------------------------ placement
    def choose(self, placement: Placement) -> tuple[str, Model | None]:
        actor_class, config, orchestrator, _ = placement
        if orchestrator is None and getattr(actor_class, "starts_team", False):
            host = self._orchestrator_host
        elif getattr(actor_class, "is_user_proxy", False):
            host = self._people_host
        else:
            wanted = self._wanted(config, orchestrator)
            host = self._least_loaded(self._hosts_for(wanted, "the card") if wanted else None)
        if host == DRIVER:
            return host, None
        if host in self._lost:
            raise RuntimeError(f"host {host} was lost; {config.name or config.role} cannot start")
        with self._lock:
            self._placed[host] += 1
        team = orchestrator.team_id if orchestrator is not None else None
        from retinue.llm.model_overrides import overriding_model

        model = overriding_model(agent=config.name or None, role=config.role, team=team)
        if model is not None:
            _check_travels(model, config, host)
        return host, model

    def _wanted(self, config: BaseConfig, orchestrator: ActorAddress | None) -> str | None:
        """The host or tag the role's card or the placement names, if any."""
        if orchestrator is not None:
            actor = self.system.local_actor(orchestrator)
            if isinstance(actor, Orchestrator):
                card = actor.directory.profile(config.role)
                if card is not None and card.metadata.get(HOST_KEY):
                    return str(card.metadata[HOST_KEY])
        return self._placement.get(config.role)

    def _hosts_for(self, where: str, source: str) -> list[str]:
        if where in self._tags:
            return [where]
        tagged = [name for name, tags in self._tags.items() if where in tags]
        if not tagged:
            raise ValueError(
                f"{source} names host {where!r}, which is no host or tag: {self._known()}"
            )
        return tagged

    def _least_loaded(self, among: list[str] | None) -> str:
        candidates = [h for h in (among or self._tags) if h not in self._lost]
        if not candidates and among:  # the hosts named were lost: any live one will do
            logger.warning("hosts %s were lost; starting on another", ", ".join(among))
            candidates = self.live_hosts
        if not candidates:
            raise RuntimeError("every host of the cluster was lost; nothing can start")
        with self._lock:
            return min(candidates, key=self._estimated_load)

    def _estimated_load(self, host: str) -> int:
        running, started = self._load[host]
        return running + max(0, self._placed[host] - started)

    def _known(self) -> str:
        tags = sorted({t for ts in self._tags.values() for t in ts})
        return f"{', '.join(self._tags)}" + (f" (tags: {', '.join(tags)})" if tags else "")

    # ------------------------------------------------------------------ across hosts
    def actors(self) -> list[ActorAddress]:
        import ray

        live = [self._handles[h] for h in self.live_hosts]
        found: list[ActorAddress] = []
        for listed in ray.get([h.actors.remote() for h in live], timeout=self.timeout):
            found.extend(listed)
        return found

    def wait_idle(self, timeout: float) -> bool:
        """Idle everywhere: two looks at every host, none of which saw work begin between them.

        Work in transit is owed by its sender's host until the receiver has taken it, so a
        moment when every host is idle is a moment when nothing is anywhere. The first look
        waits for each host to be idle; the second, right after, checks that no host's
        activity mark moved: then all were idle together between the two.
        """
        deadline = time.monotonic() + timeout
        tracker = self.system.tracker
        while True:
            if not tracker.wait(max(0.0, deadline - time.monotonic())):
                return False
            here = tracker.activity
            first = self._look(deadline)
            if first is None:
                return False
            if not all(idle for idle, _ in first.values()):
                continue
            second = self._look(None)
            if second is None:
                return False
            unchanged = all(second.get(h) == (True, mark) for h, (_, mark) in first.items())
            if unchanged and tracker.pending <= 0 and tracker.activity == here:
                return True

    def _look(self, deadline: float | None) -> dict[str, tuple[bool, int]] | None:
        """(idle, activity) of every live host, each waiting for idle until `deadline`."""
        import ray

        wait = 0.0 if deadline is None else max(0.0, deadline - time.monotonic())
        names = self.live_hosts
        refs = [self._handles[h].quiet.remote(wait) for h in names]
        try:
            looks = ray.get(refs, timeout=wait + self.timeout)
        except Exception as exc:  # noqa: BLE001 - a host died meanwhile: it is reported, look again
            logger.debug("an idle look failed: %s", exc)
            return {} if deadline is not None and time.monotonic() < deadline else None
        return dict(zip(names, looks, strict=True))

    def on_host_lost(self, host: str) -> None:
        for other in self.live_hosts:  # they stop sending to it at once, too
            self._handles[other].lost.remote(host)
        try:
            super().on_host_lost(host)
        finally:
            self._reported.setdefault(host, threading.Event()).set()

    def moved(self, address: ActorAddress) -> None:
        super().moved(address)
        for host in self.live_hosts:  # every host sends its mail for the old address there
            self._handles[host].moved.remote(address)

    def wait_lost(self, host: str, timeout: float) -> bool:
        """Wait until the loss of `host` has been noticed and reported (and its members
        restored, with `restore`); False if not in time."""
        with self._lock:
            reported = self._reported.setdefault(host, threading.Event())
        return reported.wait(timeout)

    # ------------------------------------------------------------------ stop
    def shutdown(self, timeout: float) -> bool:
        """Close every host by `timeout` (their systems stop and send their last reports
        here), then stop pulling; the hosts are killed unless `reuse` keeps them."""
        import ray

        deadline = time.monotonic() + timeout
        live = self.live_hosts
        refs = [self._handles[h].close.remote(timeout) for h in live]
        stopped = True
        for name, ref in zip(live, refs, strict=True):
            try:
                closed = bool(ray.get(ref, timeout=max(0.1, deadline - time.monotonic()) + 5))
                stopped = stopped and closed
            except Exception as exc:  # noqa: BLE001 - any failure to close counts as not stopped
                logger.warning("host %s did not close in time: %s", name, exc)
                stopped = False
            self._closed.add(name)
        self.close()
        for puller in self._pullers:
            puller.join(PULL_WAIT + 1)
        if not self._reuse:
            for handle in self._handles.values():
                ray.kill(handle)
        if self._owns_ray:
            ray.shutdown()
        return stopped


def _host_tags(hosts: int | Sequence[str] | Mapping[str, Sequence[str]]) -> dict[str, list[str]]:
    if isinstance(hosts, int):
        if hosts < 1:
            raise ValueError(f"hosts must be 1 or more, got {hosts}")
        return {f"host-{i}": [] for i in range(1, hosts + 1)}
    if isinstance(hosts, str):
        raise ValueError("hosts is a count, a list of names or a mapping of names to tags")
    tags = {name: list(hosts[name]) if isinstance(hosts, Mapping) else [] for name in hosts}
    if not tags:
        raise ValueError("a cluster needs at least one host")
    if DRIVER in tags:
        raise ValueError(f"{DRIVER!r} is the driver's own name; choose another host name")
    return tags


def _check_travels(model: Model, config: BaseConfig, host: str) -> None:
    """Refuse, in one clear line, a model override that cannot be sent to `host`."""
    from ray import cloudpickle

    try:
        cloudpickle.dumps(model)  # type: ignore[no-untyped-call]
    except Exception as exc:  # noqa: BLE001 - pickling may raise anything: one clear TypeError
        raise TypeError(
            f"the model given to {config.name or config.role} cannot be sent to host {host}: "
            f"{type(exc).__name__}: {exc} (a model for an agent on a Ray host must pickle)"
        ) from None
