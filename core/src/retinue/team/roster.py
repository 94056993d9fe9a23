"""A team's roster: who its members are, under which unique names, and its directory.

The `Orchestrator` holds one. Every change to the members, the role profiles or the team's
metadata is published as the next `TeamDirectory` on the board members read, so the two can
never disagree. A hire admits a member from the hirer's own thread, so the roster guards
itself with a lock rather than relying on the orchestrator's thread.
"""

from __future__ import annotations

import dataclasses
import threading

from retinue.actors.address import ActorAddress
from retinue.frozen import FrozenMap
from retinue.team.card import AgentCard
from retinue.team.lineage import TeamMember, descendants, roots
from retinue.team.metadata import TeamMetadata
from retinue.team.names import MemberNames
from retinue.team.view import DirectoryBoard, TeamDirectory


class TeamRoster:
    """The members of one team and the directory published from them (thread-safe)."""

    def __init__(self, board: DirectoryBoard, orchestrator: ActorAddress) -> None:
        #: Members read the latest directory here.
        self.board = board
        self._team_id = orchestrator.team_id
        self._members: dict[str, TeamMember] = {}
        #: Guards the members, the names and publishing.
        self._lock = threading.RLock()
        self._names = MemberNames(reserved=[orchestrator.name])

    @property
    def directory(self) -> TeamDirectory:
        """The directory as last published."""
        return self.board.current

    def admit(
        self, address: ActorAddress, parent: ActorAddress | None, *, resumed: bool
    ) -> ActorAddress:
        """Enter a new member under a name unique among the members running now (a resumed
        one under its own name exactly); see `Orchestrator.admit`."""
        wanted = address.name or f"@{address.role}"
        with self._lock:
            name = self._names.claim_exact(wanted) if resumed else self._names.claim(wanted)
            admitted = address.model_copy(update={"name": name, "team_id": self._team_id})
            self._members[admitted.agent_id] = TeamMember(address=admitted, parent=parent)
            self._publish(members=self.directory.members.evolve(put={name: admitted}))
        return admitted

    def started(self, member: ActorAddress, parent: ActorAddress | None) -> None:
        """A member's start was reported: it names the parent an admission may not have."""
        with self._lock:
            known = self._members.get(member.agent_id)
            if known is not None and known.parent is None:
                self._members[member.agent_id] = known.model_copy(update={"parent": parent})

    def leave(self, member: ActorAddress) -> tuple[TeamMember | None, bool]:
        """`member` stopped: its name is free again. What it was, and whether none is left."""
        with self._lock:
            gone = self._members.pop(member.agent_id, None)
            if gone is not None:
                self._names.release(gone.address.name)
                self._publish(members=self.directory.members.evolve(drop=[gone.address.name]))
            return gone, not self._members

    def members(self) -> list[TeamMember]:
        """A copy of the members, in the order they were admitted."""
        with self._lock:
            return list(self._members.values())

    def descendants(self, member: ActorAddress) -> list[ActorAddress]:
        """What `member` created, in the order a recursive stop takes it (see `lineage`)."""
        return descendants(self.members(), member)

    def roots(self) -> list[ActorAddress]:
        """The members no other member created: where a recursive stop of the team starts."""
        return roots(self.members())

    def user_proxies(self) -> list[ActorAddress]:
        """Members that stand for people."""
        with self._lock:
            return [m.address for m in self._members.values() if m.address.is_user_proxy]

    def add_profiles(self, cards: list[AgentCard]) -> None:
        """Make roles hireable by name; a later card for the same role replaces the earlier."""
        for card in cards:
            if not card.role:
                raise ValueError("an AgentCard needs config.role to be registered")
        put: dict[str, AgentCard] = {card.role: card for card in cards}
        with self._lock:
            self._publish(profiles=self.directory.profiles.evolve(put=put))

    def set_metadata(self, metadata: TeamMetadata | None) -> None:
        """Publish the team's business context when it changed."""
        with self._lock:
            current = self.directory
            if metadata != current.metadata:
                self._post(current.members, current.profiles, metadata)

    def _publish(
        self,
        members: FrozenMap[str, ActorAddress] | None = None,
        profiles: FrozenMap[str, AgentCard] | None = None,
    ) -> None:
        """Post the next directory when members or profiles changed (kept by identity).

        Called with the lock held, over a directory read under it.
        """
        current = self.directory
        members = current.members if members is None else members
        profiles = current.profiles if profiles is None else profiles
        if members is current.members and profiles is current.profiles:
            return
        self._post(members, profiles, current.metadata)

    def _post(
        self,
        members: FrozenMap[str, ActorAddress],
        profiles: FrozenMap[str, AgentCard],
        metadata: TeamMetadata | None,
    ) -> None:
        current = self.directory
        self.board.publish(
            dataclasses.replace(
                current,
                version=current.version + 1,
                members=members,
                profiles=profiles,
                metadata=metadata,
            )
        )
