"""`ChainLedger`: what a team knows about its task chains, kept so every check is a count.

Every message carries the id of its task chain (a person's request starts one; whatever an
agent sends while handling a message inherits that message's chain). The ledger, one per
team, owned by the orchestrator and read by members through their `Team` view, keeps per
chain only counts and bounded windows:

* who delegated to whom (a request or an instruction), so a cascading stop finds the
  sub-team downstream of the member it was sent to without a global registry;
* which members a stop closed the chain for, so neither their late replies nor their
  queued mail can restart work (see `stop_downstream`, `is_stopped`);
* the loop detector's counts: hops, messages per pair, near-identical contents in a row
  without progress per pair, in a window of `LoopLimits.window` fingerprints;
* whether the person has heard of a message of the chain that could go nowhere
  (`first_drop`), so they are told once per chain, not once per message.

A chain's record costs the same at hop 5 and hop 5,000: one count per pair of members, a
window of fixed size, the last few hops for the reported path (see `ChainTrack`). The
ledger keeps the `max_chains` chains most recently active and forgets the oldest, closed or
not. Members reach it through `TeamChains` (`team_chains`), which a runtime spread over
hosts implements away from the orchestrator.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from retinue.actors.address import ActorAddress
from retinue.team.chain_track import PATH_LENGTH, ChainTrack
from retinue.team.fingerprints import content_words, near_identical
from retinue.team.loop_limits import LoopLimits
from retinue.team.team_chains import TeamChains

__all__ = [
    "PATH_LENGTH",
    "ChainLedger",
    "ChainStop",
    "LoopLimits",
    "TeamChains",
    "content_words",
    "near_identical",
]

#: How many refused messages a loop-stopped chain keeps for `/continue`.
MAX_HELD = 16


class ChainStop(BaseModel):
    """Why a chain stopped: a person's `/stop` (`cancel`) or the loop detector (`loop`)."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    chain_id: str
    kind: Literal["cancel", "loop"]
    reason: str
    #: The members it is closed for (a loop closes it for everyone in it).
    members: tuple[str, ...] = ()
    #: The latest hops, oldest first (`@A`, `@B`, `@A`, ...); `truncated` when longer.
    path: tuple[str, ...] = ()
    truncated: bool = False
    #: Who stopped it: the person's proxy for a `/stop`, the sender refused for a loop.
    by: str | None = None

    def render_path(self) -> str:
        """`@A → @B → @A → ...`: the latest hops, marked when the chain was longer."""
        if not self.path:
            return "(no hops)"
        head = "... → " if self.truncated else ""
        return head + " → ".join(self.path)


@dataclass(frozen=True, slots=True)
class Admission:
    """The ledger's answer to a message an agent is about to route."""

    allowed: bool
    reason: str | None = None
    #: Set only on the message that stopped the chain: whoever routes it tells the person.
    stop: ChainStop | None = None
    #: The chain is stopped as a loop: keep the refused message for `/continue` (`hold`).
    hold: bool = False


class ChainLedger:
    """The team's record of its task chains: delegations, stops and loop counts.

    Safe from any thread (members route from their own threads, the cancellation hook
    reads it on the model loop); every method holds one lock for a bounded amount of work,
    except the two a person's command calls (`latest_delegated`, `stopped_chains_of`),
    which look through the remembered chains.
    """

    def __init__(self, limits: LoopLimits | None = None) -> None:
        self._limits = limits if limits is not None else LoopLimits()
        self._tracks: OrderedDict[str, ChainTrack] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def limits(self) -> LoopLimits:
        """The loop thresholds in force."""
        return self._limits

    @limits.setter
    def limits(self, limits: LoopLimits) -> None:
        with self._lock:
            self._limits = limits
            while len(self._tracks) > limits.max_chains:
                self._tracks.popitem(last=False)

    def __len__(self) -> int:
        return len(self._tracks)

    def _track(self, chain_id: str) -> ChainTrack:
        """The chain's record, made the most recently active; the oldest one is forgotten."""
        tracks = self._tracks
        track = tracks.get(chain_id)
        if track is None:
            track = tracks[chain_id] = ChainTrack(self._limits.window)
            if len(tracks) > self._limits.max_chains:
                tracks.popitem(last=False)
        else:
            tracks.move_to_end(chain_id)
        return track

    # ------------------------------------------------------------------ routing
    def admit(
        self,
        chain_id: str,
        sender: ActorAddress,
        recipient: ActorAddress,
        intent: str,
        content: str,
        *,
        progress: bool = False,
    ) -> Admission:
        """Record a message an agent is about to route, and say whether it may go.

        Refused when the chain is closed for its sender or recipient (a message to a
        person still goes out of a loop-stopped chain), or when this message makes the
        chain a loop (then `stop` says why, once). Constant work per message: a few counts
        and at most `window` fingerprint comparisons.
        """
        words = content_words(content)
        with self._lock:
            track = self._track(chain_id)
            if track.closed_for(sender.name) or track.closed_for(recipient.name):
                if track.is_loop() and recipient.is_user_proxy:
                    return Admission(True)  # a person can never feed a loop; they hear it
                return Admission(False, track.closed_reason(), hold=track.is_loop())
            track.remember(sender, recipient, intent)
            if recipient.is_user_proxy or sender.is_user_proxy:
                return Admission(True)  # a person's words and answers to a person are no hops
            if track.graced(sender):
                return Admission(True)
            limits = self._limits
            # Compared here, not in the track: at most `window` comparisons per message.
            repeated = any(near_identical(words, seen, limits.similarity) for seen in track.window)
            stalled = repeated and not progress
            reason = track.count(sender, recipient, words=words, stalled=stalled, limits=limits)
            if reason is None:
                return Admission(True)
            path = (*track.path, recipient.name)
            track.stop = stop = ChainStop(
                chain_id=chain_id,
                kind="loop",
                reason=reason,
                members=tuple(n for n, a in track.members.items() if not a.is_user_proxy),
                path=path[-PATH_LENGTH:],
                truncated=track.hops + 1 > PATH_LENGTH,
                by=sender.name,
            )
            return Admission(False, track.closed_reason(), stop, hold=True)

    def hold(self, chain_id: str, message: Any) -> bool:
        """Keep a refused message of a loop-stopped chain for `/continue`; False when full."""
        with self._lock:
            track = self._tracks.get(chain_id)
            if track is None or track.stop is None or len(track.held) >= MAX_HELD:
                return False
            track.held.append(message)
            return True

    def first_drop(self, chain_id: str) -> bool:
        """Whether this is the chain's first message that could go nowhere (O(1)).

        True once per chain: whoever dropped that message tells the person; later drops of
        the chain are recorded only, so a fan-out to a member who left is one line, not many.
        """
        with self._lock:
            track = self._track(chain_id)
            first, track.dropped = not track.dropped, True
            return first

    # ------------------------------------------------------------------ stops
    def stop_downstream(
        self, chain_id: str, member: ActorAddress, *, by: str | None, include_member: bool
    ) -> list[ActorAddress]:
        """Close the chain for `member` and everyone it delegated to, transitively.

        Returns the agents closed for (`member` first), or an empty list, closing nothing,
        when nobody is downstream and `include_member` is False. One step under the lock: a
        delegation routed meanwhile either made it into the set or is refused.
        """
        with self._lock:
            track = self._track(chain_id)
            reached = [member.name]
            seen = {member.name}
            for name in reached:  # breadth first; grows while it is read
                for target in sorted(track.delegations.get(name, ())):
                    if target not in seen:
                        seen.add(target)
                        reached.append(target)
            if len(reached) == 1 and not include_member:
                return []
            track.members.setdefault(member.name, member)
            track.stopped.update(reached)
            # A stop supersedes a loop stop: the person has decided what happens to it.
            track.stop = ChainStop(
                chain_id=chain_id,
                kind="cancel",
                reason=f"stopped by {by or 'an operator'}",
                members=tuple(sorted(track.stopped)),
                by=by,
            )
            return [track.members[name] for name in reached if name in track.members]

    def is_stopped(self, chain_id: str | None, name: str) -> bool:
        """Whether a `/stop` closed the chain for the member called `name` (O(1)).

        Such a member's runs of the chain end and its mail of the chain is dropped. A loop
        stop is not one: it refuses routing only (`admit`), and a message already
        delivered is handled as usual, its output held for `/continue`.
        """
        if chain_id is None:
            return False
        with self._lock:
            track = self._tracks.get(chain_id)
            return (
                track is not None
                and track.stop is not None
                and track.stop.kind == "cancel"
                and name in track.stopped
            )

    def stop_of(self, chain_id: str) -> ChainStop | None:
        """Why the chain is stopped, or None while it is open (or forgotten)."""
        with self._lock:
            track = self._tracks.get(chain_id)
            return track.stop if track is not None else None

    def reopen(self, chain_id: str, *, grace: int = 0) -> tuple[ChainStop | None, list[Any]]:
        """Open a stopped chain again with fresh counts; its held messages, for delivery.

        `grace` messages then pass before the loop detector looks again. Returns the stop
        that was lifted (None: the chain was open) and the messages it held, oldest first.
        """
        with self._lock:
            track = self._tracks.get(chain_id)
            if track is None or track.stop is None:
                return None, []
            lifted, held = track.stop, track.held
            track.stop = None
            track.stopped = set()
            track.held = []
            track.reset_counts(self._limits.window)
            track.grace = max(0, grace)
            return lifted, held

    # ------------------------------------------------------------------ a resumed team
    def remember(
        self, chain_id: str, sender: ActorAddress, recipient: ActorAddress, intent: str
    ) -> None:
        """Note who delegated to whom in a chain, as `admit` does, counting nothing.

        For a resumed team, message by message from its record: a `/stop` then reaches the
        members given work before the resume. Loop counts start afresh.
        """
        with self._lock:
            self._track(chain_id).remember(sender, recipient, intent)

    def restore_stop(self, stop: ChainStop) -> None:
        """Close a chain again as its record says it was (a resumed team).

        A `/stop` closes it for the members it names, a loop stop for everyone (`remember`
        has made its members known, so `/continue` to any of them finds it). What a loop
        held follows with `hold`.
        """
        with self._lock:
            track = self._track(stop.chain_id)
            track.stop = stop
            track.stopped = set(stop.members) if stop.kind == "cancel" else set()
            track.held = []

    # ------------------------------------------------------------------ a person's commands
    def latest_delegated(self, name: str) -> str | None:
        """The most recently active chain in which `name` delegated and that is open for it."""
        with self._lock:
            for chain_id in reversed(self._tracks):
                track = self._tracks[chain_id]
                if track.delegations.get(name) and not track.closed_for(name):
                    return chain_id
        return None

    def stopped_chains_of(self, name: str) -> list[str]:
        """The stopped chains `name` took part in, most recently active first."""
        with self._lock:
            return [
                chain_id
                for chain_id in reversed(self._tracks)
                if (track := self._tracks[chain_id]).stop is not None
                and (name in track.members or name in track.stopped)
            ]

    def footprint(self, chain_id: str) -> dict[str, int]:
        """How much the ledger keeps for a chain, entry by entry (for tests and diagnostics)."""
        with self._lock:
            track = self._tracks.get(chain_id)
            return track.footprint() if track is not None else {}
