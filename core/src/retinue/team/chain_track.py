"""`ChainTrack`: one task chain's record in the team's `ChainLedger`, and its loop counts.

Split from the ledger so the ledger keeps the team's side (which chains it remembers, one
lock, the answers members get) and this module the per-chain side: who delegated to whom,
who a stop closed the chain for, and the loop detector's counts for one more hop. Every
field is bounded by the team's size or a constant, so a chain costs the same at hop 5 and
hop 5,000. Not thread-safe on its own: the ledger calls it under its lock.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING, Any

from retinue.actors.address import ActorAddress
from retinue.team.loop_limits import LoopLimits

if TYPE_CHECKING:
    from retinue.team.chains import ChainStop

#: The intents that hand work to the recipient: a stop follows them downstream.
DELEGATING_INTENTS = frozenset({"request", "instruction"})
#: How many of the latest hops a chain keeps for the path it reports.
PATH_LENGTH = 8


class ChainTrack:
    """One chain's record; every field is bounded by the team's size or a constant."""

    __slots__ = (
        "delegations",
        "dropped",
        "grace",
        "held",
        "hops",
        "members",
        "pairs",
        "path",
        "repeats",
        "stop",
        "stopped",
        "window",
    )

    def __init__(self, window: int) -> None:
        self.members: dict[str, ActorAddress] = {}
        self.delegations: dict[str, set[str]] = {}
        self.hops = 0
        self.pairs: dict[tuple[str, str], int] = {}
        self.repeats: dict[tuple[str, str], int] = {}
        self.window: deque[frozenset[str]] = deque(maxlen=window)
        self.path: deque[str] = deque(maxlen=PATH_LENGTH)
        self.grace = 0
        self.stop: ChainStop | None = None
        #: Members a `/stop` closed the chain for (a loop stop closes it for everyone).
        self.stopped: set[str] = set()
        self.held: list[Any] = []
        #: A message of the chain could go nowhere, and the person was told.
        self.dropped = False

    def closed_for(self, name: str) -> bool:
        stop = self.stop
        if stop is None:
            return False
        return stop.kind == "loop" or name in self.stopped

    def is_loop(self) -> bool:
        return self.stop is not None and self.stop.kind == "loop"

    def closed_reason(self) -> str:
        """Why a message of this stopped chain is refused, as its sender is told."""
        stop = self.stop
        assert stop is not None
        if stop.kind == "loop":
            return (
                f"this task chain was stopped as a loop: {stop.reason}. A person can /continue it"
            )
        return f"this task chain was {stop.reason}"

    def reset_counts(self, window: int) -> None:
        self.hops = 0
        self.pairs.clear()
        self.repeats.clear()
        self.window = deque(maxlen=window)
        self.path.clear()

    def remember(self, sender: ActorAddress, recipient: ActorAddress, intent: str) -> None:
        """Note both members, and the delegation when the message hands work on."""
        self.members.setdefault(sender.name, sender)
        self.members.setdefault(recipient.name, recipient)
        if intent in DELEGATING_INTENTS and not recipient.is_user_proxy:
            self.delegations.setdefault(sender.name, set()).add(recipient.name)

    def graced(self, sender: ActorAddress) -> bool:
        """Whether this hop is one `/continue N` lets through uncounted (counting resumes after)."""
        if self.grace <= 0:
            return False
        self.grace -= 1
        self.path.append(sender.name)
        return True

    def count(
        self,
        sender: ActorAddress,
        recipient: ActorAddress,
        *,
        words: frozenset[str],
        stalled: bool,
        limits: LoopLimits,
    ) -> str | None:
        """Count one hop between two agents; why it makes the chain a loop, or None.

        `stalled`: the content is near-identical to one in the window and the turn made no
        progress (the ledger compares, see `ChainLedger.admit`).
        """
        pair = _pair(sender.name, recipient.name)
        self.hops += 1
        self.pairs[pair] = count = self.pairs.get(pair, 0) + 1
        self.window.append(words)
        repeats = self.repeats[pair] = self.repeats.get(pair, 0) + 1 if stalled else 0
        self.path.append(sender.name)
        if not limits.enabled:
            return None
        if repeats > limits.max_repeats:
            return (
                f"{repeats + 1} near-identical messages in a row between {pair[0]} and "
                f"{pair[1]} with no progress (the limit is {limits.max_repeats + 1})"
            )
        if count > limits.max_pair_messages:
            return (
                f"{count} messages between {pair[0]} and {pair[1]} in one chain "
                f"(the limit is {limits.max_pair_messages})"
            )
        if self.hops > limits.max_hops:
            return f"{self.hops} hops in one chain (the limit is {limits.max_hops})"
        return None

    def footprint(self) -> dict[str, int]:
        """How much the record keeps, entry by entry."""
        return {
            "members": len(self.members),
            "delegations": sum(len(v) for v in self.delegations.values()),
            "pairs": len(self.pairs),
            "repeats": len(self.repeats),
            "window": len(self.window),
            "path": len(self.path),
            "held": len(self.held),
        }


def _pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a <= b else (b, a)
