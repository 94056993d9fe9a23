"""`TeamChains`: the team's chain ledger as members use it, whichever runtime keeps it.

Apart from `ChainLedger` (the in-process ledger, in `chains`) so that another runtime can
implement it with nothing of the ledger's: a runtime spread over hosts gives members running
away from the orchestrator one that reaches the ledger there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from retinue.actors.address import ActorAddress

if TYPE_CHECKING:
    from retinue.team.chains import Admission, ChainStop


@runtime_checkable
class TeamChains(Protocol):
    """The team's chain ledger as members use it (through `Team.chains`), from any thread.

    `ChainLedger` is the in-process one; a runtime spread over hosts gives members running
    away from the orchestrator an implementation that reaches the ledger there.
    """

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
        """Record a message an agent is about to route, and say whether it may go."""
        ...

    def hold(self, chain_id: str, message: Any) -> bool:
        """Keep a refused message of a loop-stopped chain for `/continue`; False when full."""
        ...

    def stop_downstream(
        self, chain_id: str, member: ActorAddress, *, by: str | None, include_member: bool
    ) -> list[ActorAddress]:
        """Close the chain for `member` and everyone it delegated to, transitively."""
        ...

    def is_stopped(self, chain_id: str | None, name: str) -> bool:
        """Whether a `/stop` closed the chain for the member called `name`."""
        ...

    def stop_of(self, chain_id: str) -> ChainStop | None:
        """Why the chain is stopped, or None while it is open (or forgotten)."""
        ...

    def reopen(self, chain_id: str, *, grace: int = 0) -> tuple[ChainStop | None, list[Any]]:
        """Open a stopped chain again with fresh counts; its held messages, for delivery."""
        ...

    def latest_delegated(self, name: str) -> str | None:
        """The most recently active chain in which `name` delegated and that is open for it."""
        ...

    def stopped_chains_of(self, name: str) -> list[str]:
        """The stopped chains `name` took part in, most recently active first."""
        ...

    def first_drop(self, chain_id: str) -> bool:
        """Whether this is the chain's first message that could go nowhere (the person's news)."""
        ...
