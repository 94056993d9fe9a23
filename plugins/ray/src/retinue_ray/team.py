"""`RemoteTeam`: the `Team` of a member whose orchestrator runs on another host.

Reads come from the directory this host keeps for the team: taken once from the
orchestrator's host, then kept current by it (each new version is sent here in order with
the team's other mail), so a turn reads the team without a call. The team's budget and
chain ledger stay single, on the orchestrator's host: `RemoteBudget` and `RemoteChains`
call them there (outside the orchestrator's mailbox), and send what needs no answer (a
charge, a response's spend, a release) without waiting; a request's reservation is awaited
on the model loop, never blocking it.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from typing import TYPE_CHECKING, Any

from retinue import (
    ActorAddress,
    AskTimeoutError,
    BudgetStatus,
    ChainStop,
    Charge,
    LimitsChange,
    OrchestratorTeam,
    TeamDirectory,
    TeamUsage,
    TeamUsageLimits,
)

from retinue_ray.node import wait_answer

if TYPE_CHECKING:
    from retinue.team.budget import Admission as BudgetAdmission
    from retinue.team.chains import Admission as ChainAdmission

    from retinue_ray.node import Node


class _TeamPart:
    """Calls to one part (`team_budget`, `chain_ledger`) of an orchestrator on another host."""

    __slots__ = ("_node", "_orchestrator", "_part")

    def __init__(self, node: Node, orchestrator: ActorAddress, part: str) -> None:
        self._node = node
        self._orchestrator = orchestrator
        self._part = part

    def _request(self, method: str, *args: Any, **kwargs: Any) -> concurrent.futures.Future[Any]:
        return self._node.request(
            self._orchestrator.host,
            "team",
            (self._orchestrator, self._part, method, args, kwargs),
        )

    def _call(self, method: str, *args: Any, **kwargs: Any) -> Any:
        future = self._request(method, *args, **kwargs)
        return wait_answer(future, self._node.timeout, f"the team's {self._part}.{method}()")

    def _send(self, method: str, *args: Any, **kwargs: Any) -> None:
        """A call whose answer nobody waits for (it still arrives, and is dropped)."""
        self._request(method, *args, **kwargs)


class RemoteBudget(_TeamPart):
    """The team's `TeamBudget`, kept on the orchestrator's host."""

    __slots__ = ()

    @property
    def limits(self) -> TeamUsageLimits:
        limits: TeamUsageLimits = self._call("limits")
        return limits

    def status(self) -> BudgetStatus:
        status: BudgetStatus = self._call("status")
        return status

    def admit(self, member: str) -> BudgetAdmission:
        admission: BudgetAdmission = self._call("admit", member)
        return admission

    async def reserve(self, member: str) -> BudgetAdmission:
        """Awaited on the model loop, which it never blocks: the answer comes as a future."""
        future = self._request("reserve_now", member)
        try:
            admission: BudgetAdmission = await asyncio.wait_for(
                asyncio.wrap_future(future), self._node.timeout
            )
        except TimeoutError:
            raise AskTimeoutError(
                f"the team's {self._part}.reserve() gave no answer within {self._node.timeout:g}s"
            ) from None
        return admission

    def spend(self, member: str, usage: Charge) -> None:
        self._send("spend", member, usage)

    def release(self, member: str) -> None:
        self._send("release", member)

    def charge(self, member: str, usage: Charge) -> None:
        self._send("charge", member, usage)

    def hold(self, member: ActorAddress) -> bool:
        return bool(self._call("hold", member))

    def set_limits(self, limits: TeamUsageLimits, changed_by: str = "") -> TeamUsageLimits:
        now: TeamUsageLimits = self._call("set_limits", limits, changed_by)
        return now

    def raise_limits(self, by: LimitsChange, changed_by: str = "") -> TeamUsageLimits:
        now: TeamUsageLimits = self._call("raise_limits", by, changed_by)
        return now

    def restore(self, usage: TeamUsage) -> None:
        self._call("restore", usage)


class RemoteChains(_TeamPart):
    """The team's chain ledger, kept on the orchestrator's host."""

    __slots__ = ()

    def admit(
        self,
        chain_id: str,
        sender: ActorAddress,
        recipient: ActorAddress,
        intent: str,
        content: str,
        *,
        progress: bool = False,
    ) -> ChainAdmission:
        admission: ChainAdmission = self._call(
            "admit", chain_id, sender, recipient, intent, content, progress=progress
        )
        return admission

    def hold(self, chain_id: str, message: Any) -> bool:
        return bool(self._call("hold", chain_id, message))

    def stop_downstream(
        self, chain_id: str, member: ActorAddress, *, by: str | None, include_member: bool
    ) -> list[ActorAddress]:
        stopped: list[ActorAddress] = self._call(
            "stop_downstream", chain_id, member, by=by, include_member=include_member
        )
        return stopped

    def is_stopped(self, chain_id: str | None, name: str) -> bool:
        return bool(self._call("is_stopped", chain_id, name))

    def stop_of(self, chain_id: str) -> ChainStop | None:
        stop: ChainStop | None = self._call("stop_of", chain_id)
        return stop

    def reopen(self, chain_id: str, *, grace: int = 0) -> tuple[ChainStop | None, list[Any]]:
        reopened: tuple[ChainStop | None, list[Any]] = self._call("reopen", chain_id, grace=grace)
        return reopened

    def latest_delegated(self, name: str) -> str | None:
        latest: str | None = self._call("latest_delegated", name)
        return latest

    def stopped_chains_of(self, name: str) -> list[str]:
        chains: list[str] = self._call("stopped_chains_of", name)
        return chains

    def first_drop(self, chain_id: str) -> bool:
        return bool(self._call("first_drop", chain_id))


class RemoteTeam(OrchestratorTeam):
    """The team of `member`, run by `orchestrator` on another host (a retinue `Team`).

    Hires, fires and stops are the kernel's (`OrchestratorTeam`), through this host's actor
    system; the reads come from the directory this host keeps, and the budget and the chain
    ledger are called on the orchestrator's host.
    """

    __slots__ = ("_budget", "_chains", "_node")

    def __init__(self, node: Node, orchestrator: ActorAddress, member: ActorAddress) -> None:
        super().__init__(node.system, orchestrator, member)
        self._node = node
        self._budget = RemoteBudget(node, orchestrator, "team_budget")
        self._chains = RemoteChains(node, orchestrator, "chain_ledger")

    # ------------------------------------------------------------------ reads
    @property
    def directory(self) -> TeamDirectory:
        return self._node.directory_of(self._orchestrator)

    @property
    def budget(self) -> RemoteBudget:
        return self._budget

    @property
    def chains(self) -> RemoteChains:
        return self._chains

    # ------------------------------------------------------------------ changes
    def hire(self, role: str, name: str | None = None) -> ActorAddress:
        hired = super().hire(role, name)
        if self.directory.member(hired.name) != hired:  # admitted there; known here now
            self._node.refresh(self._orchestrator)
        return hired

    def _fired(self, directory: TeamDirectory) -> None:
        self._node.install(self._orchestrator.team_id or self._orchestrator.agent_id, directory)

    def __repr__(self) -> str:
        return f"RemoteTeam({self._member.name} in {self._orchestrator.name})"
