"""`Server`: what a host takes in from the others, and the answers to their calls.

| item | what the receiving host does |
|---|---|
| `post` | puts the message in the recipient's mailbox (a delivery to a stopped one: `bounce`) |
| `bounce` | makes it a dead letter here, where its sender runs (recorded, the sender answered) |
| `send` | `ActorSystem.send` from code outside the actors, stamped and routed here |
| `call` | an ask, a start, a stop, the team's budget, chains or directory: `result` answers |
| `tell` | a call without an answer |
| `directory` | a newer directory of a team whose orchestrator runs there, for the members here |

Taking in never blocks on an actor: an ask is answered when its future is, and a call that
may wait on another host (a start, a stop) runs in the server's pool.
"""

from __future__ import annotations

import concurrent.futures
import logging
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from retinue import ActorAddress, ActorNotFoundError, Orchestrator, TeamDirectory

from retinue_ray.placement import Placement, StartSpec

if TYPE_CHECKING:
    from retinue_ray.links import Item
    from retinue_ray.node import Node

logger = logging.getLogger(__name__)

#: What a member on another host may call on its team's orchestrator without its mailbox.
TEAM_PARTS = frozenset({"team_budget", "chain_ledger"})
#: Calls that may wait on another host (an admission, a start, a stop): served in a pool.
WAITING_CALLS = frozenset({"start", "stop"})


class Server:
    """One host's serving side: takes in batches from the others and answers their calls."""

    def __init__(self, node: Node) -> None:
        self.node = node
        self._lock = threading.Lock()
        self._pool = concurrent.futures.ThreadPoolExecutor(
            max_workers=32, thread_name_prefix=f"retinue-ray {node.name}"
        )
        self._watched: set[tuple[str, str]] = set()

    def close(self) -> None:
        """Serve no more waiting calls."""
        self._pool.shutdown(wait=False, cancel_futures=True)

    # ------------------------------------------------------------------ receiving
    def receive(self, source: str, batch: Sequence[Item]) -> None:
        """Take in a batch from `source`, in order; never blocks on an actor."""
        node = self.node
        system = node.system
        for item in batch:
            kind = item[0]
            try:
                if kind == "post":
                    self._take_post(*item[1:])
                elif kind == "call":
                    self._take_call(source, item[1], item[2], item[3])
                elif kind == "result":
                    node.calls.settle(item[1], item[2], item[3])
                elif kind == "directory":
                    node.install(item[1], item[2])
                elif kind == "send":
                    system.send(item[2], item[3], item[1])
                elif kind == "tell":
                    system.tell(item[1], item[2], *item[3], **item[4])
                elif kind == "bounce":
                    system.dead_letter(item[1], item[2], item[3])
                else:
                    logger.warning("host %s ignored an item of kind %r", node.name, kind)
            except Exception as exc:
                logger.warning(
                    "host %s could not take a %s from %s: %s", node.name, kind, source, exc
                )
                logger.debug("traceback of the failure above", exc_info=True)

    def _take_post(self, recipient: ActorAddress, message: Any, bounce: bool) -> None:
        node = self.node
        if node.system.post(recipient, message) or not bounce:
            return
        sender = getattr(message, "sender", None)
        home = sender.host if sender is not None else None
        if home not in (None, node.name) and node.put(home, ("bounce", sender, recipient, message)):
            return  # its sender's host makes it a dead letter, where the sender is answered
        node.system.dead_letter(sender, recipient, message)

    def _take_call(self, source: str, call_id: int, kind: str, args: tuple[Any, ...]) -> None:
        if kind == "ask":
            address, method, call_args, call_kwargs = args
            try:
                asked = self.node.system.ask_future(address, method, *call_args, **call_kwargs)
            except Exception as exc:  # noqa: BLE001 - the asker gets whatever the ask raised
                self._answer(source, call_id, False, exc)
                return
            asked.add_done_callback(lambda done: self._answer_future(source, call_id, done))
            return
        tracker = self.node.system.tracker
        tracker.add()  # owed work until answered, so the system is not idle meanwhile
        if kind in WAITING_CALLS:  # they may wait on another host: never in this thread
            self._pool.submit(self._run_op, source, call_id, kind, args)
        else:  # a few additions under a lock: answered at once, one thread hand-off fewer
            self._run_op(source, call_id, kind, args)

    def _run_op(self, source: str, call_id: int, kind: str, args: tuple[Any, ...]) -> None:
        try:
            try:
                value = self.serve(source, kind, args)
            except BaseException as exc:  # noqa: BLE001 - SystemExit too: the caller gets an error
                self._answer(source, call_id, False, exc)
            else:
                self._answer(source, call_id, True, value)
        finally:
            self.node.system.tracker.done()

    def serve(self, source: str, kind: str, args: tuple[Any, ...]) -> Any:
        """Answer a call of `kind` from host `source` (in a pool thread: it may wait)."""
        node = self.node
        if kind == "start":
            return node.start_here(StartSpec(*args))
        if kind == "stop":
            return self._stop_here(*args)
        if kind == "team":
            orchestrator, part, method, call_args, call_kwargs = args
            if part not in TEAM_PARTS or method.startswith("_"):
                raise AttributeError(f"the team offers no {part}.{method}")
            target = getattr(self._orchestrator(orchestrator), part)
            member = getattr(target, method)
            return member(*call_args, **call_kwargs) if callable(member) else member
        if kind == "watch":
            return self._watch(source, *args)
        if kind == "directory":
            return self._orchestrator(args[0]).directory
        if kind == "place":
            return node.choose(Placement(*args))
        raise ValueError(f"host {node.name} serves no call {kind!r}")

    def _stop_here(self, address: ActorAddress, timeout: float) -> bool:
        """Stop an actor of this host; once it has, what it told its orchestrator is there."""
        system = self.node.system
        actor = system.local_actor(address)
        orchestrator = actor.orchestrator if actor is not None else None
        stopped = system.stop_actor(address, timeout)
        link = self.node.link_to(orchestrator.host) if orchestrator is not None else None
        if stopped and link is not None:
            link.flush(timeout)
        return stopped

    def _watch(self, source: str, orchestrator: ActorAddress) -> TeamDirectory:
        actor = self._orchestrator(orchestrator)
        team_id = orchestrator.team_id or orchestrator.agent_id
        with self._lock:
            new = (team_id, source) not in self._watched
            self._watched.add((team_id, source))
        if not new:
            return actor.directory

        def hand_on(directory: TeamDirectory) -> None:  # in the orchestrator's thread
            self.node.put(source, ("directory", team_id, directory))

        return actor.directory_board.watch(hand_on)

    def _orchestrator(self, address: ActorAddress) -> Orchestrator:
        actor = self.node.system.local_actor(address)
        if not isinstance(actor, Orchestrator):
            raise ActorNotFoundError(f"the orchestrator {address.name} is not running")
        return actor

    # ------------------------------------------------------------------ answers
    def _answer_future(
        self, target: str, call_id: int, done: concurrent.futures.Future[Any]
    ) -> None:
        error = done.exception()
        if error is None:
            self._answer(target, call_id, True, done.result())
        else:
            self._answer(target, call_id, False, error)

    def _answer(self, target: str, call_id: int, ok: bool, value: Any) -> None:
        if isinstance(value, BaseException) and not isinstance(value, Exception):
            value = RuntimeError(f"{type(value).__name__}: {value}")
        if not self.node.put(target, ("result", call_id, ok, value)):
            logger.debug(
                "host %s: the answer to call %d found its host gone", self.node.name, call_id
            )
