"""The team as agents and cards see it: a typed `Team` view over a versioned directory.

An orchestrator publishes an immutable `TeamDirectory` (members, role profiles, version)
on a `DirectoryBoard` whenever its roster or profiles change. A member reads the latest
directory with a plain attribute read: no ask, no copy, no wait on the orchestrator's
thread, so a turn's lookups cost the same in a team of two and of a thousand. Changes
(hire, fire, stop) go through the `Team` methods, which a runtime implements: in one
process `OrchestratorTeam`, elsewhere (Ray hosts) an implementation of the same protocol.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from retinue.frozen import FrozenMap
from retinue.team.publication import Published

if TYPE_CHECKING:
    from pydantic import BaseModel

    from retinue.actors.address import ActorAddress
    from retinue.actors.messages import EventMessage
    from retinue.team.budget import TeamBudget
    from retinue.team.card import AgentCard
    from retinue.team.chains import TeamChains
    from retinue.team.lineage import TeamMember
    from retinue.team.metadata import TeamMetadata


@dataclass(frozen=True, slots=True, eq=False)
class TeamDirectory:
    """Who is in the team and which roles can be hired, as of one version.

    Never changes once published; a newer version is a new object. `members` (by `@name`,
    in the order they joined) and `profiles` (by role) keep their identity across versions
    that did not change them, so a reader can tell "unchanged" by identity alone.
    """

    version: int = 0
    members: FrozenMap[str, ActorAddress] = field(default_factory=FrozenMap)
    profiles: FrozenMap[str, AgentCard] = field(default_factory=FrozenMap)
    metadata: TeamMetadata | None = None
    """The team's business context (`Orchestrator.set_metadata`), or None."""
    turn_reports: bool = False
    """Whether members report each turn's start and end (`TeamConfig.turn_reports`)."""

    def member(self, name: str) -> ActorAddress | None:
        """The member called `name` (with its `@`), or None."""
        found: ActorAddress | None = self.members.get(name.strip())
        return found

    def profile(self, role: str) -> AgentCard | None:
        """The blueprint registered for `role`, or None."""
        found: AgentCard | None = self.profiles.get(role.strip())
        return found

    def profiles_with_skill(self, skill: str) -> list[AgentCard]:
        """The blueprints that list `skill` (ignoring case and surrounding spaces)."""
        return [card for card in self.profiles.values() if card.has_skill(skill)]

    def members_with_skill(self, skill: str) -> list[ActorAddress]:
        """The members whose role's blueprint lists `skill`, in the order they joined."""
        roles = {card.role for card in self.profiles_with_skill(skill)}
        return [member for member in self.members.values() if member.role in roles]

    @property
    def agent_count(self) -> int:
        """How many members are agents (people not counted); computed once per version."""
        return self.members.memo(
            "retinue.agent_count", lambda ms: sum(not a.is_user_proxy for a in ms.values())
        )


def may_hire(directory: TeamDirectory, hirer: ActorAddress, role: str) -> str | None:
    """Why `hirer` may not hire a member for `role`, or None when it may.

    The one statement of the rule: an agent whose own role was registered with a
    non-empty `routes_to` may hire only those roles; an empty `routes_to`, or no profile
    for its role, allows any. Routing, the in-run recipient check and the team card all
    ask here, so a refusal reads the same whichever surface met it. It lives beside the
    directory it reads, so a card applies it without loading the model stack.
    """
    own = directory.profile(hirer.role)
    if own is None or not own.routes_to:
        return None
    role = role.strip()
    if role in own.routes_to:
        return None
    return f"{hirer.name} may not hire {role!r}; it may hire: {', '.join(sorted(own.routes_to))}"


class DirectoryBoard(Published[TeamDirectory]):
    """Where one orchestrator posts its team's directory for its members to read.

    Only the orchestrator's thread publishes; any thread reads `current` without a lock.
    A watcher (`watch`) hears of each new directory right after it is published: how a
    runtime spread over hosts copies it to the members running elsewhere.
    """

    __slots__ = ("_watchers",)

    def __init__(self, directory: TeamDirectory | None = None) -> None:
        super().__init__(directory if directory is not None else TeamDirectory())
        self._watchers: tuple[Callable[[TeamDirectory], None], ...] = ()

    def publish(self, value: TeamDirectory) -> None:
        """Make `value` the one readers see (versions only grow), and tell the watchers."""
        super().publish(value)
        for watcher in self._watchers:
            watcher(value)

    def watch(self, watcher: Callable[[TeamDirectory], None]) -> TeamDirectory:
        """Call `watcher` with every directory published from now on; returns the current one.

        It runs in the publishing thread (the orchestrator's), so it must only hand the
        directory on, never wait.
        """
        self._watchers = (*self._watchers, watcher)
        return self._current


@runtime_checkable
class Team(Protocol):
    """The team a member belongs to, as its code and its cards use it.

    Reads (`directory`, `members`, `profiles`) return the latest published snapshot without
    waiting on anyone. Changes act for the member the view belongs to: a hire names it as
    the parent. Refusals raise `ValueError` with the reason.
    """

    @property
    def directory(self) -> TeamDirectory:
        """The latest directory: members and profiles of one version, read together."""
        ...

    @property
    def members(self) -> Mapping[str, ActorAddress]:
        """The current members by `@name`, in the order they joined."""
        ...

    @property
    def profiles(self) -> Mapping[str, AgentCard]:
        """The roles that can be hired, by role."""
        ...

    @property
    def budget(self) -> TeamBudget:
        """The team's shared budget: what every member may spend together, and the tally.

        Members charge it and ask it before each run without waiting on anyone.
        """
        ...

    @property
    def chains(self) -> TeamChains:
        """The team's task chains: who delegated to whom, stops, loop counts; never waits."""
        ...

    def roster(self) -> list[TeamMember]:
        """Every member with who hired it and whether it is busy right now.

        Busy state changes all the time, so it is read on request (this waits for the
        orchestrator), never carried in the directory.
        """
        ...

    def states(self) -> dict[str, BaseModel]:
        """Each member's latest state checkpoint, by agent id (this waits for the orchestrator)."""
        ...

    def events(
        self, agent_id: str | None = None, event_class: type[object] | str | None = None
    ) -> list[EventMessage]:
        """The events in the orchestrator's recent window, oldest first, of one member
        (`agent_id`) and of one kind (a class, or a class name) if given; this waits for it."""
        ...

    def hire(self, role: str, name: str | None = None) -> ActorAddress:
        """Start a new member for `role` (under `name` if given) with this member as parent."""
        ...

    def fire(self, member: ActorAddress, timeout: float | None = None) -> bool:
        """Make `member` leave the team with the members it hired (`stop(recursive=True)`):
        each stops after its current work, and after the members it hired in turn.

        True when all have left within `timeout` (the directory no longer lists them);
        False when one is still finishing and leaves afterwards. A person cannot be fired.
        """
        ...

    def stop(
        self, member: ActorAddress, timeout: float | None = None, *, recursive: bool = False
    ) -> bool:
        """Stop `member`'s actor after its queued messages; True once it has stopped.

        With `recursive`, the members it created (and they created) stop before it, deepest
        first; a person's proxy is never stopped this way. `timeout` bounds the whole.
        Stopping oneself never waits: it returns False and happens after the current message.
        """
        ...
