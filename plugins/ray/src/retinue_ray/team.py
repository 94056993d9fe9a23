"""`RemoteTeam`: the `Team` of a member whose orchestrator runs on another host.

Reads come from the directory this host keeps for the team: taken once from the
orchestrator's host, then kept current by it (each new version is sent here in order with
the team's other mail), so a turn reads the team without a call. The team's budget and
chain ledger stay single, on the orchestrator's host: `RemoteBudget` and `RemoteChains`
call them there (outside the orchestrator's mailbox), and send what needs no answer (a
charge, a release) without waiting.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from retinue import (
    ActorAddress,
    AgentCard,
    BudgetStatus,
    ChainStop,
    Charge,
    LimitsChange,
    Orchestrator,
    StopMessage,
    TeamDirectory,
    TeamMember,
    TeamUsage,
    TeamUsageLimits,
)
from retinue.actors.turns import observe, observing  # a runtime sits below the seam

from retinue_ray.node import wait_answer

if TYPE_CHECKING:
    from retinue.actors.budget import Admission as BudgetAdmission
    from retinue.actors.chains import Admission as ChainAdmission

    from retinue_ray.node import Node


class _TeamPart:
    """Calls to one part (`team_budget`, `chain_ledger`) of an orchestrator on another host."""

    __slots__ = ("_node", "_orchestrator", "_part")

    def __init__(self, node: Node, orchestrator: ActorAddress, part: str) -> None:
        self._node = node
        self._orchestrator = orchestrator
        self._part = part

    def _call(self, method: str, *args: Any, **kwargs: Any) -> Any:
        future = self._node.request(
            self._orchestrator.host,
            "team",
            (self._orchestrator, self._part, method, args, kwargs),
        )
        return wait_answer(future, self._node.timeout, f"the team's {self._part}.{method}()")

    def _send(self, method: str, *args: Any, **kwargs: Any) -> None:
        """A call whose answer nobody waits for (it still arrives, and is dropped)."""
        self._node.request(
            self._orchestrator.host,
            "team",
            (self._orchestrator, self._part, method, args, kwargs),
        )


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


class RemoteTeam:
    """The team of `member`, run by `orchestrator` on another host (a retinue `Team`)."""

    __slots__ = ("_budget", "_chains", "_member", "_node", "_orchestrator")

    def __init__(self, node: Node, orchestrator: ActorAddress, member: ActorAddress) -> None:
        self._node = node
        self._orchestrator = orchestrator
        self._member = member
        self._budget = RemoteBudget(node, orchestrator, "team_budget")
        self._chains = RemoteChains(node, orchestrator, "chain_ledger")

    # ------------------------------------------------------------------ reads
    @property
    def directory(self) -> TeamDirectory:
        return self._node.directory_of(self._orchestrator)

    @property
    def members(self) -> Mapping[str, ActorAddress]:
        return self.directory.members

    @property
    def profiles(self) -> Mapping[str, AgentCard]:
        return self.directory.profiles

    @property
    def budget(self) -> RemoteBudget:
        return self._budget

    @property
    def chains(self) -> RemoteChains:
        return self._chains

    def roster(self) -> list[TeamMember]:
        return self._orchestrator_proxy().get_team()

    # ------------------------------------------------------------------ changes
    def hire(self, role: str, name: str | None = None) -> ActorAddress:
        card = self.directory.profile(role)
        if card is None:
            raise ValueError(f"no role {role.strip()!r} is registered")
        config = card.get_config_copy()
        if name is not None:
            config = config.model_copy(update={"name": name})
        system = self._node.system
        hirer = system.local_actor(self._member)
        if hirer is not None:  # the hirer starts it, so its own hooks see the hire
            hired = hirer.createActor(card.agent_class, config)
        else:
            hired = system.spawn(
                card.agent_class, config, orchestrator=self._orchestrator, parent=self._member
            )
        if self.directory.member(hired.name) != hired:  # admitted there; known here now
            self._node.refresh(self._orchestrator)
        return hired

    def fire(self, member: ActorAddress, timeout: float | None = None) -> bool:
        if member.is_user_proxy:
            raise ValueError(f"{member.name} is a person, not an agent, and cannot be fired")
        if not self.stop(member, timeout):
            return False
        # The member's host sent its stop notice before answering, so an ask through the
        # orchestrator's mailbox returns once the directory no longer lists the member.
        directory = self._orchestrator_proxy().get_directory()
        self._node.install(self._orchestrator.team_id or self._orchestrator.agent_id, directory)
        return True

    def stop(self, member: ActorAddress, timeout: float | None = None) -> bool:
        if observing():  # a fire, told to the turn that made it (tracing on this host)
            team_id = member.team_id
            observe(StopMessage(sender=member, recipient=self._orchestrator, team_id=team_id))
        system = self._node.system
        if member == self._member:  # never wait on ourselves
            actor = system.local_actor(member)
            if actor is not None:
                actor.stop()
            return False
        return system.stop_actor(member, timeout=timeout)

    def _orchestrator_proxy(self) -> Orchestrator:
        return self._node.system.proxy_ask(self._orchestrator, Orchestrator)

    def __repr__(self) -> str:
        return f"RemoteTeam({self._member.name} in {self._orchestrator.name})"
