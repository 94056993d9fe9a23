"""Routing: where a turn's messages go, and what becomes of those that can go nowhere.

The team's addressing convention is `@Name` for a member and a bare role to hire a new
member for that role. Every rule of it lives here:

* resolving a recipient string to an address (`locate_recipient`, `resolve_recipient`),
  which never raises: one bad recipient cannot cost a turn its other messages;
* what the in-run recipient check tells a model about recipients it cannot reach
  (`recipient_problems`);
* `Router`, one per agent, as `Cancellation` is: it delivers a `StructuredOutput`
  (`route_output`), asking the agent's task chains to admit each message; it hires for a
  recipient (`hire_for`: within the hirer's `routes_to`, then through the `hire_member`
  command of a card; the `routes_to` rule itself is `may_hire`, stated once beside the
  team directory it reads, `retinue.team.view`, so the team card applies the same rule,
  in the same words, without loading the model stack); and it reports a recipient that
  was skipped (`report_skipped`): one log line, a `RoutingSkippedEvent`, a line in the
  model's history so it learns of it on its next turn, and the person's line, once per
  task chain.

`BaseAgent` keeps the spec's names (`_route_output`, `_locate`, `_skip`, `get_team_member`,
`hire_member`, `routing_problems`) as one-line methods over its `Router`. Nothing here
imports the agent class, and the router needs of an agent only public members: a second
agent class needs `resolve_recipient` as much as `BaseAgent` does.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from retinue.actors.address import ActorAddress
from retinue.actors.errors import one_line
from retinue.agent.events import RoutingSkippedEvent
from retinue.agent.failures import shown_recipient
from retinue.agent.messages import AgentMessage
from retinue.agent.output import StructuredOutput
from retinue.team.view import Team, TeamDirectory, may_hire

if TYPE_CHECKING:
    from retinue.actors.messages import Message
    from retinue.tools.commands import CommandRegistry

logger = logging.getLogger(__name__)

NO_SUCH_MEMBER = "no such member"
REQUESTER_LEFT = "it has left the team"
"""Why an answer to the requester (who sent the message the turn handles) could not go."""

HIRE_NEEDS_TEAM_PLUGIN = (
    "cannot hire {role!r}: no installed card provides hire_member "
    "(install the retinue-team plugin: pip install retinue-team)"
)


class TeamResolver(Protocol):
    """What `resolve_recipient` needs from an agent."""

    def get_team_member(self, name: str) -> ActorAddress | None:
        """The member called `name` (with its `@`), or None."""
        ...

    def hire_member(self, role: str) -> ActorAddress:
        """Hire a new member for `role`; raises when that is impossible."""
        ...


class RouterHost(TeamResolver, Protocol):
    """The agent a `Router` routes for, as it uses it; `BaseAgent` is one."""

    myAddress: ActorAddress

    @property
    def team(self) -> Team | None: ...

    @property
    def command_registry(self) -> CommandRegistry: ...

    def send(self, recipient: ActorAddress, message: Message) -> None: ...

    @property
    def current_message(self) -> Message | None: ...

    def notify_event(self, event: Any) -> None: ...

    def report_undelivered(
        self, recipient: str, reason: str, *, person_told: bool = False
    ) -> None: ...


class ChainAdmission(Protocol):
    """What a `Router` asks of the team's task chains (`ChainGuard` answers)."""

    def refusal(self) -> str | None:
        """Why this turn may route nothing, or None."""
        ...

    def admit_output(self, recipient: ActorAddress, message: AgentMessage) -> str | None:
        """Why this outbound message may not go, or None."""
        ...


@runtime_checkable
class Routed(Protocol):
    """An agent with a `Router` (every `BaseAgent`): it reports a skipped recipient itself."""

    @property
    def router(self) -> Router: ...


Locate = Callable[[str], tuple[ActorAddress | None, str | None]]
"""Find a recipient's address, or None and why (`Router.locate`, `BaseAgent._locate`)."""


class Skip(Protocol):
    """Report a recipient skipped (`Router.report_skipped`, `BaseAgent._skip`)."""

    def __call__(self, recipient: str, reason: str, *, person_told: bool = False) -> None: ...


def is_member_name(recipient: str) -> bool:
    """Whether a recipient string names a member rather than a role."""
    return recipient.strip().startswith("@")


def locate_recipient(agent: TeamResolver, recipient: str) -> tuple[ActorAddress | None, str | None]:
    """The address a recipient string stands for, or None and the reason it has none.

    A member is looked up, a role is hired; neither ever raises, so one bad recipient in a
    turn cannot cost the turn's other messages.
    """
    recipient = recipient.strip()
    try:
        if is_member_name(recipient):
            member = agent.get_team_member(recipient)
            return (member, None) if member is not None else (None, NO_SUCH_MEMBER)
        return agent.hire_member(recipient), None
    except Exception as exc:  # noqa: BLE001 - a hire may raise anything: it must not cost the turn
        return None, str(exc) or type(exc).__name__


def resolve_recipient(agent: TeamResolver, recipient: str) -> ActorAddress | None:
    """The address a recipient string stands for: a member, or a freshly hired one.

    None for an unknown `@Name` or a hire that cannot happen (an unknown role, one outside
    the agent's `routes_to`, a full team, no team plugin installed), so a router skips it
    and goes on with its other recipients. Why is logged; an agent that reports skips
    (every `BaseAgent`) also publishes a `RoutingSkippedEvent` and tells its model and the
    person.
    """
    address, reason = locate_recipient(agent, recipient)
    if address is None:
        reason = reason or NO_SUCH_MEMBER
        if isinstance(agent, Routed):
            agent.router.skip(recipient.strip(), reason)
        else:
            logger.warning("cannot reach %s: %s", recipient.strip(), reason)
    return address


def recipient_problems(
    directory: TeamDirectory, me: ActorAddress, output: StructuredOutput
) -> str | None:
    """Which recipients of `output` cannot be reached, and what could be; None if all can.

    What the in-run recipient check sends back to the model. Reads one directory snapshot
    (no ask); the lists of members and roles are built only when something is wrong.
    """
    bad = []
    for request in output.messages:
        target = request.recipient.strip()
        if is_member_name(target):
            if directory.member(target) is None:
                bad.append(f"{target} is not a member")
        elif directory.profile(target) is None or may_hire(directory, me, target) is not None:
            bad.append(f"{target} is not a role you can hire")
    if not bad:
        return None
    members = sorted(set(directory.members) - {me.name})
    roles = [role for role in directory.profiles if may_hire(directory, me, role) is None]
    return (
        "Some recipients cannot be reached: "
        + "; ".join(bad)
        + f". Members: {', '.join(members) or 'none'}."
        + f" Roles you can hire: {', '.join(roles) or 'none'}."
        + " Send your messages again with valid recipients."
    )


class Router:
    """One agent's routing: where its turn's messages go, and what of those that cannot go.

    It needs of its agent only the public `RouterHost`, and of the task chains only
    `ChainAdmission`. The agent may give it hooks to find a recipient (`locate`) and to
    report a skipped one (`skip`); `BaseAgent` gives its `_locate` and `_skip`, so a
    subclass overriding either still decides while this object does the routing.
    """

    def __init__(
        self,
        host: RouterHost,
        chains: ChainAdmission,
        *,
        locate: Locate | None = None,
        skip: Skip | None = None,
    ) -> None:
        self._host = host
        self._chains = chains
        self._locate: Locate = locate if locate is not None else self.locate
        #: Reports a skipped recipient: the agent's hook when it gave one, else `report_skipped`.
        self.skip: Skip = skip if skip is not None else self.report_skipped

    def route_output(self, output: StructuredOutput) -> bool:
        """Deliver each outbound request of a turn; True when at least one went out.

        The raw text goes out as an `AgentMessage` with the intent the model chose; the
        receiver adds its own reply-protocol line. A recipient that cannot be reached is
        skipped and reported (`skip`), and the others still go out. So is a message the
        team's task chains refuse (its chain was stopped, or it makes a loop; see
        `retinue.agent.loops`), though the person, who stopped the chain or was told of
        the loop, hears nothing more of it.
        """
        host, chains = self._host, self._chains
        delivered = False
        closed = chains.refusal() if output.messages else None
        for request in output.messages:
            if closed is not None:  # the turn's chain was stopped for this agent: hire nobody
                self.skip(request.recipient, closed, person_told=True)
                continue
            recipient, reason = self._locate(request.recipient)
            if recipient is None:
                self.skip(request.recipient, reason or NO_SUCH_MEMBER)
                continue
            message = AgentMessage(content=request.message, type=request.message_type)
            refusal = chains.admit_output(recipient, message)
            if refusal is not None:
                self.skip(request.recipient, refusal, person_told=True)
                continue
            host.send(recipient, message)
            delivered = True
        return delivered

    def locate(self, recipient: str) -> tuple[ActorAddress | None, str | None]:
        """The recipient's address, or None and why (the agent's `routes_to` included)."""
        return locate_recipient(self._host, recipient)

    def hire_for(self, role: str) -> ActorAddress:
        """Hire a member for `role` as the agent: within its `routes_to`, by a card's command.

        Raises `ValueError` when the rule refuses the hire and `RuntimeError` naming the team
        plugin when no card provides `hire_member`; whatever the card refuses, it raises.
        """
        host = self._host
        role = role.strip()
        team = host.team
        if team is not None:
            refusal = may_hire(team.directory, host.myAddress, role)
            if refusal is not None:
                raise ValueError(refusal)
        registry = host.command_registry
        if not registry.has("hire_member"):
            raise RuntimeError(HIRE_NEEDS_TEAM_PLUGIN.format(role=role))
        address: ActorAddress = registry.callable("hire_member")(role)
        return address

    def report_skipped(self, recipient: str, reason: str, *, person_told: bool = False) -> None:
        """A message to `recipient` did not go out: one log line, an event, and the news.

        The news is the agent's `report_undelivered`: a line its model reads on its next
        turn, and the person's, once per task chain (`person_told`: they know already why,
        a chain they stopped, a loop they heard of). An answer to the member whose message
        the turn handles, gone from the team, is work dropped because its requester left,
        and says so.
        """
        host = self._host
        current = host.current_message
        requester = current.sender if current is not None else None
        if (
            reason == NO_SUCH_MEMBER
            and requester is not None
            and requester.name == recipient.strip()
        ):
            reason = REQUESTER_LEFT
        shown = shown_recipient(recipient)  # a model wrote it: one line in the log too
        logger.warning("%s: cannot reach %s: %s", host.myAddress.name, shown, one_line(reason))
        host.notify_event(
            RoutingSkippedEvent(agent=host.myAddress, recipient=recipient, reason=reason)
        )
        host.report_undelivered(recipient, reason, person_told=person_told)

    def problems(self, output: StructuredOutput) -> str | None:
        """Which recipients of `output` cannot be reached, and what could be (see
        `recipient_problems`); None outside a team."""
        team = self._host.team
        if team is None:
            return None
        return recipient_problems(team.directory, self._host.myAddress, output)
