"""What a replay plays back, read from a team's record: `read_script` → `Script`.

A replay needs, in the record's order: who was started from outside the team (the person's
seat, the members a harness or a team file started), the cards registered, and what the
person said; and, by agent, every model turn: what the agent sent its model (the requests
since its previous answer, and the instructions in force) and what the model answered.
Members the team hired itself are not steps: the replay's team hires them again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from retinue.actors.address import ActorAddress
from retinue.actors.messages import (
    EventMessage,
    Message,
    ProfilesRegisteredMessage,
    SentMessage,
    StartMessage,
)
from retinue.agent.messages import AgentMessage
from retinue.llm.events import ModelMessageEvent, ToolDefinitionsEvent
from retinue.replay.tools import Offered, OfferedFolder
from retinue.store import Store
from retinue.team.card import AgentCard
from retinue.team.record_codec import RecordDecodeError, decode


class ReplayError(Exception):
    """A replay cannot start: no such team, a record or cassette it cannot read; one line."""


@dataclass(frozen=True, slots=True)
class Turn:
    """One model request of an agent and its answer, as recorded (pydantic-ai's JSON forms).

    `request` holds the parts the agent added since its previous answer; `instructions` the
    system block in force for it; `tools` the tool definitions it offered (None: a record
    from before they were recorded).
    """

    agent: str
    number: int
    request: list[dict[str, Any]]
    instructions: str | None
    response: dict[str, Any]
    tools: Offered | None = None


@dataclass(frozen=True, slots=True)
class Start:
    """A member started from outside the team (not hired by one of its agents)."""

    name: str
    role: str
    actor_class: str | type[Any]
    config: Any
    person: bool


@dataclass(frozen=True, slots=True)
class Register:
    """Role cards registered on the team."""

    cards: list[AgentCard]


@dataclass(frozen=True, slots=True)
class Say:
    """A message the person sent."""

    to: str
    content: str
    intent: str


Step = Start | Register | Say


@dataclass(frozen=True, slots=True)
class Answer:
    """A message that reached the person: who sent it, and its text."""

    sender: str
    content: str


@dataclass(slots=True)
class Script:
    """A recorded team, as a replay plays it: its steps, its turns by agent, its answers."""

    source: str
    """The recorded team's id (or the cassette's path)."""
    steps: list[Step] = field(default_factory=list)
    turns: dict[str, list[Turn]] = field(default_factory=dict)
    answers: list[Answer] = field(default_factory=list)
    team_config: Any = None
    """The orchestrator's recorded config (None for a cassette: its team file says it)."""
    team_class: str | type[Any] | None = None
    import_path: list[str] = field(default_factory=list)


def read_script(store: Store, team_id: str) -> Script:
    """The script of `team_id` in `store`; `ReplayError` when the store has no such team."""
    if store.team(team_id) is None:
        raise ReplayError(f"{store.describe()} has no team {team_id}")
    script = _Reader(team_id)
    for record in store.read(team_id):
        try:
            message = decode(record.data, load_classes=True)
        except RecordDecodeError as exc:
            raise ReplayError(
                f"record {record.position} ({record.kind}) of team {team_id} cannot be read: {exc}"
            ) from None
        try:
            script.add(message)
        except ValueError as exc:
            raise ReplayError(f"record {record.position} of team {team_id}: {exc}") from None
    info = store.team(team_id)
    folders = info.metadata.get("import_path") if info is not None else None
    if isinstance(folders, list):
        script.script.import_path = [f for f in folders if isinstance(f, str)]
    if script.script.team_config is None:
        raise ReplayError(f"the record of team {team_id} has no start of its orchestrator")
    return script.script


class _Reader:
    """Folds a team's stream, message by message, into its `Script`."""

    def __init__(self, team_id: str) -> None:
        self.team_id = team_id
        self.script = Script(source=team_id)
        self.started: set[str] = set()
        self.pending: dict[str, list[dict[str, Any]]] = {}  # requests since the last answer
        self.instructions: dict[str, str | None] = {}
        self.tools = OfferedFolder()

    def add(self, message: Message) -> None:
        if isinstance(message, StartMessage) and message.sender is not None:
            self._started(message.sender, message)
        elif isinstance(message, ProfilesRegisteredMessage):
            cards = [card for card in message.cards if isinstance(card, AgentCard)]
            if cards:
                self.script.steps.append(Register(cards))
        elif isinstance(message, SentMessage) and isinstance(message.message, AgentMessage):
            self._sent(message.message)
        elif isinstance(message, EventMessage) and isinstance(message.event, ModelMessageEvent):
            self._model_message(message.event)
        elif isinstance(message, EventMessage) and isinstance(message.event, ToolDefinitionsEvent):
            event = message.event
            self.tools.add(
                event.agent_name, event.function_tools, event.output_tools, event.definitions
            )

    def _started(self, sender: ActorAddress, start: StartMessage) -> None:
        if sender.agent_id == self.team_id:
            if self.script.team_config is None:
                self.script.team_config = start.config
                self.script.team_class = start.actor_class
            return
        if sender.agent_id in self.started or not start.member:
            return  # started again by a resume, or attached to the team without membership
        self.started.add(sender.agent_id)
        self.script.steps.append(
            Start(sender.name, sender.role, start.actor_class, start.config, sender.is_user_proxy)
        )

    def _sent(self, sent: AgentMessage) -> None:
        sender, recipient = sent.sender, sent.recipient
        if sender is not None and sender.is_user_proxy and recipient is not None:
            self.script.steps.append(Say(recipient.name, sent.content, sent.type))
        elif recipient is not None and recipient.is_user_proxy:
            self.script.answers.append(Answer(sender.name if sender else "", sent.content))

    def _model_message(self, event: ModelMessageEvent) -> None:
        data = event.message if isinstance(event.message, dict) else event.model_dump()["message"]
        agent = event.agent_name
        if data.get("kind") == "request":
            self.pending.setdefault(agent, []).extend(data.get("parts", []))
            if data.get("instructions") is not None:
                self.instructions[agent] = data["instructions"]
            return
        turns = self.script.turns.setdefault(agent, [])
        turns.append(
            Turn(
                agent=agent,
                number=len(turns) + 1,
                request=self.pending.pop(agent, []),
                instructions=self.instructions.get(agent),
                response=data,
                tools=self.tools.current(agent),
            )
        )
