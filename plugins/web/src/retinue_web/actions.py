"""What the page may do to a live team, as its person: say something, or stop work.

Nothing else: the page sends text to a member (a `/command` among it only if the member
announced that command, or `/stop`), and asks for stops. Each is a message from the
person's seat, delivered and recorded like one typed at a console, so the kernel's rules
apply unchanged: only a person's `/command` is a command, a `/stop` cascades down its task.

A stop's report is the kernel's own answer to it (`Run interrupted.`, `Stopped @A's task
(...): @A and @B.`, `No run is in progress; ...`), found in the record as the message
answering that `/stop` (its parent), with the `ChainStoppedEvent` naming who was stopped.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from retinue import ActorAddress, AgentMessage, Runtime

STOP = "/stop"
#: The commands every agent answers, announced or not (the kernel's own).
KERNEL_COMMANDS = frozenset({"stop"})


class ActionError(ValueError):
    """What the page asked cannot be done; the text says why, for the person."""


class TeamStoppedError(ActionError):
    """The live team has stopped: it can no longer be spoken to (the page still reads it)."""

    def __init__(self) -> None:
        super().__init__("the team has stopped: nothing can be said to it or stopped any more")


class LiveTeam(Protocol):
    """A team running in this process: `RunningTeam` (team files), `ResumedTeam`, your own."""

    @property
    def system(self) -> Runtime: ...

    @property
    def orchestrator(self) -> ActorAddress: ...

    @property
    def human(self) -> ActorAddress | None: ...


@dataclass(frozen=True)
class Said:
    """A message the person sent: its id (what answers name as their parent) and where."""

    id: str
    to: str
    position: int


def say(team: LiveTeam, to: ActorAddress, text: str, position: int) -> Said:
    """Send `text` as the person to `to`; `position` is how far the record was when sent."""
    person = team.human
    if person is None:
        raise ActionError("this team has no person's seat to speak from")
    message = AgentMessage(content=text, type="request")
    sent = message.addressed(person, to, to.team_id, fresh=True)  # it opens its own chain
    team.system.route(team.orchestrator, sent)
    return Said(sent.id, to.name, position)


def check_text(text: str, member: str, commands: list[dict[str, Any]]) -> str:
    """The text to send, or `ActionError`: empty, or a `/command` the member does not have."""
    text = text.strip()
    if not text:
        raise ActionError("say something")
    if not text.startswith("/"):
        return text
    word = text[1:].split(maxsplit=1)[0] if len(text) > 1 else ""
    known = {c.get("name") for c in commands} | KERNEL_COMMANDS
    if word not in known:
        listing = ", ".join(f"/{name}" for name in sorted(n for n in known if n)) or "none"
        raise ActionError(f"{member} has no command /{word}; its commands: {listing}")
    return text
