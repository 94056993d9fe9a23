"""`TeamTool`: hiring and firing by role, and the team as every agent's context.

One feature, four channels:

* TOOL_CALL — `hire_members(roles)` and `fire_members(names)` for the model, which answer
  in sentences and never raise, so a refused hire reads as advice instead of a failed call;
* LLM_CONTEXT — the roster and the role profiles as keyed mappings, so a later hire reaches
  every agent as a small delta, not a restated team. Both are `FrozenMap`s made once per
  directory version and shared by every agent of the team: an unchanged turn costs one
  identity check, a changed one only the members that changed. Busy flags are left out:
  they change on most turns, so they would put a delta (and a different prompt) into
  nearly every turn, at a cost that grows with the team; `team_members()` reports them;
* SYSTEM_PROMPT — the team's business context (`TeamMetadata`: company, product,
  conventions), rendered once through the operator's template when the agent starts;
* COMMAND — `hire_member`, `fire_member`, `team_members` and `team_roles` for operators
  (`/hire_member Developer name=@Ada`) and for code; `hire_member` is also what the kernel's
  routing calls when a model names a bare role as a recipient, so its native value is the
  new member's `ActorAddress`. Refusals raise `ValueError` with the reason, which the
  command registry hands back to an operator as the result.

The card reaches the team only through its host's typed `Team` view (`host.team`): reads
come from the latest published directory without waiting, and only hires, fires and the
busy report wait on the orchestrator, which never asks an agent anything, so none of these
calls can deadlock on it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr
from retinue import (
    ActorAddress,
    AgentCard,
    FrozenMap,
    Team,
    TeamDirectory,
    ToolCard,
    check_member_name,
    may_hire,
)

DEFAULT_MAX_MEMBERS = 20
"""How many agents a team may hold unless a card says otherwise (people are not counted)."""

ROSTER_SECTION = "Team roster"
"""Heading of the roster in context updates."""
ROLES_SECTION = "Role profiles"
"""Heading of the hireable roles in context updates."""

_ROSTER_KEY = "retinue_team.roster"
"""Under which the roster lines are derived from (and shared on) the directory's members."""


class MemberInfo(BaseModel):
    """One member of the team as `team_members()` reports it."""

    model_config = ConfigDict(frozen=True)

    name: str
    role: str
    busy: bool = False
    is_person: bool = False
    address: ActorAddress

    def __str__(self) -> str:
        if self.is_person:
            return f"{self.name} — {self.role} (a person)"
        return f"{self.name} — {self.role} ({'busy' if self.busy else 'idle'})"


class RoleInfo(BaseModel):
    """One registered role as `team_roles()` reports it."""

    model_config = ConfigDict(frozen=True)

    role: str
    description: str = ""
    skills: list[str] = Field(default_factory=list)
    may_hire: bool = True
    """Whether the agent asked may hire this role (its own card's `routes_to` allows it)."""

    def __str__(self) -> str:
        parts = [self.role]
        if self.description:
            parts.append(f"— {self.description}")
        if self.skills:
            parts.append(f"[{', '.join(self.skills)}]")
        if not self.may_hire:
            parts.append("(not hireable by this agent)")
        return " ".join(parts)


class HiredMember(BaseModel):
    """A member this agent hired, by name and by the agent id that name had then."""

    name: str
    agent_id: str


class Hired(BaseModel):
    """The team card's own state: the members its agent hired (see `tool_offered`)."""

    members: list[HiredMember] = Field(default_factory=list)


class TeamTool(ToolCard):
    """Hire and fire team members by role; the team roster and role profiles as context."""

    name: ClassVar[str] = "team"
    default: ClassVar[bool] = True

    max_members: int = Field(default=DEFAULT_MAX_MEMBERS, ge=1)
    """The most agents the team may hold; a hire beyond it is refused. People don't count."""
    stop_timeout: float = Field(default=10.0, gt=0)
    """Seconds a fire waits for the member to finish what it is doing and stop."""

    _unkept: Hired | None = PrivateAttr(default=None)

    # -- channels --------------------------------------------------------------------------

    def get_tools(self) -> Sequence[Callable[..., Any]]:
        return [self.hire_members, self.fire_members]

    def tool_offered(self, name: str) -> bool:
        """Hiring only to a member whose role names roles it may hire, while one is
        registered and the team has room; firing only to one that hired a member still
        in the team. Anyone may still hire by naming a role as a recipient."""
        team = self.host.team
        if team is None:
            return False
        directory = team.directory
        if name == "hire_members":
            own = directory.profile(self.host.myAddress.role)
            return (
                own is not None
                and any(role in directory.profiles for role in own.routes_to)
                and directory.agent_count < self.max_members
            )
        if name == "fire_members":
            members = directory.members
            return any(
                (member := members.get(hired.name)) is not None
                and member.agent_id == hired.agent_id
                for hired in self._hired().members
            )
        return True

    def get_context_states(self) -> Mapping[str, Callable[[], Mapping[str, str]]]:
        return {ROSTER_SECTION: self.roster_state, ROLES_SECTION: self.roles_state}

    def get_system_prompts(self) -> Sequence[Callable[[], str]]:
        return [self.metadata_prompt]

    def metadata_prompt(self) -> str:
        """The team's business context as its template renders it ("" when there is none).

        Read once, when the agent starts: the system block never changes after that.
        """
        team = self.host.team
        metadata = team.directory.metadata if team is not None else None
        return metadata.render() if metadata is not None else ""

    def get_commands(self) -> Sequence[Callable[..., Any]]:
        return [self.hire_member, self.fire_member, self.team_members, self.team_roles]

    # -- tools for the model ---------------------------------------------------------------

    def hire_members(self, roles: list[str]) -> str:
        """Hire a member for each role given (repeat a role for several)."""
        if not roles:
            return "No roles given; nobody was hired."
        return _each(roles, "hire", lambda role: _hired(self.hire_member(role)))

    def fire_members(self, names: list[str]) -> str:
        """Fire members by @Name."""
        if not names:
            return "No names given; nobody was fired."
        return _each(names, "fire", self.fire_member)

    # -- commands --------------------------------------------------------------------------

    def hire_member(self, role: str, name: str | None = None) -> ActorAddress:
        """Hire a new member for a role (optionally under a chosen @name); returns its address.

        Raises `ValueError` when the role is unknown, when this agent's own role profile
        does not route to it, or when the team is full.
        """
        role = role.strip()
        if not role:
            raise ValueError("a role is needed to hire a member")
        team = self._team()
        directory = team.directory
        profiles = directory.profiles
        if role not in profiles:
            raise ValueError(f"no role {role!r} is registered; {_roles_phrase(profiles)}")
        refusal = may_hire(directory, self.host.myAddress, role)
        if refusal is not None:
            raise ValueError(refusal)
        agents = directory.agent_count
        if agents >= self.max_members:
            raise ValueError(
                f"the team is full: it has {agents} agents and allows at most "
                f"{self.max_members} (fire a member first)"
            )
        address = team.hire(role, name=_member_name(name) if name is not None else None)
        self._note_hire(address)
        return address

    def fire_member(self, name: str) -> str:
        """Fire a member by @name: it stops after its current work and leaves the team.

        Raises `ValueError` for a name not on the roster and for a person (a user proxy).
        An agent may fire itself: it leaves once the message it is handling is done.
        """
        target = _member_name(name)
        team = self._team()
        members = team.members
        member = members.get(target)
        if member is None:
            names = ", ".join(sorted(members))
            raise ValueError(f"no member is called {target}; the members are: {names or 'none'}")
        if member.is_user_proxy:
            raise ValueError(f"{member.name} is a person, not an agent, and cannot be fired")
        if member == self.host.myAddress:
            # Its hires leave with it; its own stop never waits on itself: it is queued
            # behind the message being handled.
            team.fire(member, timeout=self.stop_timeout)
            return f"{member.name} fired itself and leaves the team once its current work is done."
        if team.fire(member, timeout=self.stop_timeout):
            return f"Fired {member.name} ({member.role}); it has left the team."
        return (
            f"Fired {member.name} ({member.role}); it is still finishing its current work "
            "and leaves the team when that is done."
        )

    def team_members(self) -> list[MemberInfo]:
        """The current team roster: each member's @name, role, and whether it is busy."""
        return [
            MemberInfo(
                name=m.address.name,
                role=m.address.role,
                busy=bool(m.busy),
                is_person=m.address.is_user_proxy,
                address=m.address,
            )
            for m in self._team().roster()
        ]

    def team_roles(self) -> list[RoleInfo]:
        """The roles that can be hired, with their descriptions and skills."""
        return _role_infos(self._team().directory, self.host.myAddress)

    # -- context providers -----------------------------------------------------------------

    def roster_state(self) -> Mapping[str, str]:
        """The roster keyed by @name, for context updates: each member's role.

        The same object for every agent of the team until the roster changes (a hire or a
        member leaving): derived once per directory version, never per turn.
        """
        team = self.host.team
        if team is None:
            return {}
        return team.directory.members.derive(_ROSTER_KEY, _roster_line)

    def roles_state(self) -> Mapping[str, str]:
        """The role profiles keyed by role, for context updates; shared like the roster."""
        team = self.host.team
        if team is None:
            return {}
        directory = team.directory
        me = self.host.myAddress
        return directory.profiles.memo(
            ("retinue_team.roles", me.role), lambda _: _roles_items(directory, me)
        )

    # -- helpers ---------------------------------------------------------------------------

    def _note_hire(self, address: ActorAddress) -> None:
        """Remember who this agent hired (checkpointed): what offers it the firing tool.

        Members gone since are let go here, so the list stays as long as the team.
        """
        hired = self._hired()
        members = self._team().directory.members
        kept = [h for h in hired.members if h.name in members]
        kept.append(HiredMember(name=address.name, agent_id=address.agent_id))
        hired.members = kept

    def _hired(self) -> Hired:
        """Who this agent hired: in its checkpoint, or on the card for a host whose state
        has no slot for cards (a host that is no agent)."""
        try:
            return self.card_state(Hired)
        except TypeError:
            if self._unkept is None:
                self._unkept = Hired()
            return self._unkept

    def _team(self) -> Team:
        team = self.host.team
        if team is None:
            raise ValueError(f"{self.host.myAddress.name} is not part of a team")
        return team


def _role_infos(directory: TeamDirectory, me: ActorAddress) -> list[RoleInfo]:
    return [
        RoleInfo(
            role=p.role,
            description=p.description,
            skills=list(p.skills),
            may_hire=may_hire(directory, me, p.role) is None,
        )
        for p in directory.profiles.values()
    ]


HIREABLE_KEY = "You may hire"
"""The roles section's last line: which of the roles this agent may hire, said once."""


def _roles_items(directory: TeamDirectory, me: ActorAddress) -> FrozenMap[str, str]:
    items: dict[str, str] = {}
    hireable: list[str] = []
    infos = _role_infos(directory, me)
    for info in infos:
        text = info.description.strip()
        if info.skills:
            skills = f"skills: {', '.join(info.skills)}"
            text = f"{text} ({skills})" if text else skills
        items[info.role] = text or "no description"
        if info.may_hire:
            hireable.append(info.role)
    if len(hireable) < len(infos):  # said only where the card restricts it: any is the rule
        items[HIREABLE_KEY] = ", ".join(hireable) or "none of them"
    return FrozenMap(items)


def _roster_line(member: ActorAddress) -> str:
    """What the roster says of a member: its role unless its name says it (`@Developer`,
    `@Developer2`), and whether it is a person. Every line is paid in every later prompt."""
    named = re.fullmatch(rf"@{re.escape(member.role)}\d*", member.name) is not None
    if member.is_user_proxy:
        return "a person" if named else f"{member.role}, a person"
    return "" if named else member.role


def _member_name(name: str) -> str:
    """A member name with its leading `@` (`Ada` and `@Ada` both mean `@Ada`).

    Raises `ValueError` for a name no member may carry (control or invisible characters,
    too long): refused here, before anyone is hired, in the kernel's words.
    """
    name = name.strip()
    if not name.lstrip("@"):
        raise ValueError("a member name is needed")
    return check_member_name(name if name.startswith("@") else f"@{name}")


def _roles_phrase(profiles: Mapping[str, AgentCard]) -> str:
    if not profiles:
        return "no roles are registered with the orchestrator (register_agent_profiles)"
    return f"registered roles: {', '.join(sorted(profiles))}"


def _hired(address: ActorAddress) -> str:
    return f"Hired {address.name} as {address.role}."


def _each(items: list[str], verb: str, act: Callable[[str], str]) -> str:
    """A line for each item: what `act` says, or why it failed (any failure: the model is told)."""
    lines = []
    for item in items:
        try:
            lines.append(act(item))
        except Exception as exc:  # noqa: BLE001 - a hire or fire may fail in any way
            lines.append(f"Could not {verb} {item!r}: {exc}")
    return "\n".join(lines)
