"""`OrchestratorTeam`: the `Team` an orchestrator offers the members running in its process.

Reads come from the orchestrator's `DirectoryBoard` and `ChainLedger`, taken once and then
read without asking; hires and stops go through the `Runtime`. Only `roster()` (busy flags, on
request) and a fire (to wait until the directory lists the member no more) wait on the
orchestrator's thread.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, cast

from retinue.actors import runtime
from retinue.actors.messages import StopMessage
from retinue.actors.turns import observe, observing

if TYPE_CHECKING:
    from pydantic import BaseModel

    from retinue.actors.address import ActorAddress
    from retinue.actors.messages import EventMessage
    from retinue.actors.runtime_api import Runtime
    from retinue.team.budget import TeamBudget
    from retinue.team.card import AgentCard
    from retinue.team.chains import ChainLedger, TeamChains
    from retinue.team.lineage import TeamMember
    from retinue.team.orchestrator import Orchestrator
    from retinue.team.view import DirectoryBoard, TeamDirectory


#: Seconds a stop still waits once a recursive stop's deadline has passed.
MIN_WAIT = 0.001


class OrchestratorTeam:
    """The team of `member`, run by the orchestrator at `orchestrator` in this process.

    Hires, fires and stops work the same for a member whose orchestrator runs elsewhere: a
    runtime spread over hosts subclasses this and gives the reads (and `_fired`) its own.
    """

    __slots__ = ("_board", "_ledger", "_member", "_orchestrator", "_system")

    def __init__(self, system: Runtime, orchestrator: ActorAddress, member: ActorAddress) -> None:
        self._system = system
        self._orchestrator = orchestrator
        self._member = member
        self._board: DirectoryBoard | None = None
        self._ledger: ChainLedger | None = None

    # ------------------------------------------------------------------ reads
    @property
    def directory(self) -> TeamDirectory:
        board = self._board
        if board is None:
            board = self._board = self._find_board()
        return board.current

    @property
    def members(self) -> Mapping[str, ActorAddress]:
        return self.directory.members

    @property
    def profiles(self) -> Mapping[str, AgentCard]:
        return self.directory.profiles

    @property
    def budget(self) -> TeamBudget:
        return self._orchestrator_actor().team_budget

    @property
    def chains(self) -> TeamChains:
        ledger = self._ledger
        if ledger is None:
            ledger = self._ledger = self._orchestrator_actor().chain_ledger
        return ledger

    def roster(self) -> list[TeamMember]:
        return self._orchestrator_proxy().get_team()

    def states(self) -> dict[str, BaseModel]:
        return self._orchestrator_proxy().get_states()

    def events(
        self, agent_id: str | None = None, event_class: type[object] | str | None = None
    ) -> list[EventMessage]:
        return self._orchestrator_proxy().get_events(agent_id, event_class)

    # ------------------------------------------------------------------ changes
    def hire(self, role: str, name: str | None = None) -> ActorAddress:
        card = self.directory.profile(role)
        if card is None:
            raise ValueError(f"no role {role.strip()!r} is registered")
        config = card.get_config_copy()
        if name is not None:
            config = config.model_copy(update={"name": name})
        # The hiring member creates the actor itself, so its own hooks see the hire (an
        # agent remembers which message a hire served, to answer a failed start there).
        hirer = runtime.lookup(self._member.agent_id)
        if hirer is not None:
            return hirer.createActor(card.agent_class, config)
        return self._system.spawn(
            card.agent_class, config, orchestrator=self._orchestrator, parent=self._member
        )

    def fire(self, member: ActorAddress, timeout: float | None = None) -> bool:
        if member.is_user_proxy:
            raise ValueError(f"{member.name} is a person, not an agent, and cannot be fired")
        if not self.stop(member, timeout, recursive=True):  # nobody left working for nobody
            return False
        # The stop notice is queued at the orchestrator before the stop is answered, so one
        # ask after it returns once the published directory no longer lists the member.
        self._fired(self._orchestrator_proxy().get_directory())
        return True

    def stop(
        self, member: ActorAddress, timeout: float | None = None, *, recursive: bool = False
    ) -> bool:
        if recursive:
            return self._stop_tree(member, timeout)
        if observing():  # a fire, told to the turn that made it
            team_id = member.team_id
            observe(StopMessage(sender=member, recipient=self._orchestrator, team_id=team_id))
        if member == self._member:
            # Never wait on ourselves: the stop queues behind the message being handled.
            actor = runtime.lookup(member.agent_id)
            if actor is not None:
                actor.stop()
            return False
        return self._system.stop_actor(member, timeout=timeout)

    def _stop_tree(self, member: ActorAddress, timeout: float | None) -> bool:
        """What `member` created, each after its own, then `member`; one deadline for all."""
        wait = self._system.ask_timeout if timeout is None else timeout
        deadline = time.monotonic() + wait
        stopped = True
        for address in [*self._orchestrator_proxy().get_descendants(member), member]:
            left = max(deadline - time.monotonic(), MIN_WAIT)  # past it, still asked to stop
            stopped = self.stop(address, left) and stopped
        return stopped

    # ------------------------------------------------------------------ helpers
    def _fired(self, directory: TeamDirectory) -> None:
        """Hook: a fire is done and `directory` no longer lists the member (a view that keeps
        its own copy of the directory installs it here)."""

    def _find_board(self) -> DirectoryBoard:
        return self._orchestrator_actor().directory_board

    def _orchestrator_actor(self) -> Orchestrator:
        actor = runtime.lookup(self._orchestrator.agent_id)
        if not getattr(actor, "starts_team", False):
            raise RuntimeError(
                f"the orchestrator {self._orchestrator.name} of {self._member.name} is not "
                "running in this process"
            )
        return cast("Orchestrator", actor)

    def _orchestrator_proxy(self) -> Orchestrator:
        proxy: Orchestrator = self._system.proxy_ask(self._orchestrator)
        return proxy

    def __repr__(self) -> str:
        return f"OrchestratorTeam({self._member.name} in {self._orchestrator.name})"
