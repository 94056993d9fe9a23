"""What a store keeps: `Record` (one entry of a team's stream), `TeamInfo`, `MemberInfo`.

The store layer knows nothing of actors: a record is a message already turned into JSON by
the recorder (`retinue.team.recorder`), with the few columns a store indexes on. Layout:

- `position`: the record's place in its team's stream, 1, 2, 3, ... without gaps, assigned
  by the store when the batch is appended (`Record.position` is 0 before that).
- `kind`: what the record is. The message class's name (`SentMessage`, `StartMessage`,
  `StopMessage`, `StateChangedMessage`, `HandledMessage`, `ErrorMessage`,
  `ProfilesRegisteredMessage`, ...), except an `EventMessage`, whose kind is its event's class
  name (`ModelMessageEvent`, `LlmUsageEvent`, `ToolCallEvent`, `PlanningChangedEvent`, ...).
- `type`: the message class's registry name (`module:QualName`); `data` is the whole message
  as the codec's JSON (`retinue.team.record_codec.decode` turns it back into the message).
- `message_id`, `parent_id`, `chain_id`: the message's own ids (DESIGN.md §2).
- `actor_id`: the agent id of the actor that reported it (whose state a checkpoint is, who
  started or stopped); `sender` / `recipient`: `@names` as the conversation reads them.
- `timestamp`: seconds since the epoch (UTC), when the message was made.
- `requests`, `input_tokens`, `output_tokens`, `cost_usd`: usage, on usage records only.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any


@dataclass(frozen=True, slots=True)
class Record:
    """One entry of a team's stream (see the module docstring for each column)."""

    kind: str
    type: str
    data: str
    message_id: str
    actor_id: str | None = None
    sender: str | None = None
    recipient: str | None = None
    parent_id: str | None = None
    chain_id: str | None = None
    timestamp: float = 0.0
    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    team_id: str = ""
    position: int = 0

    def placed(self, team_id: str, position: int) -> Record:
        """This record as stored: in `team_id`'s stream at `position`."""
        return replace(self, team_id=team_id, position=position)


#: The columns of a record in storage order (the SQL stores' column list).
RECORD_COLUMNS: tuple[str, ...] = (
    "team_id",
    "position",
    "kind",
    "type",
    "message_id",
    "actor_id",
    "sender",
    "recipient",
    "parent_id",
    "chain_id",
    "timestamp",
    "requests",
    "input_tokens",
    "output_tokens",
    "cost_usd",
    "data",
)


def record_row(record: Record) -> tuple[Any, ...]:
    """The record as a row in `RECORD_COLUMNS` order."""
    return tuple(getattr(record, name) for name in RECORD_COLUMNS)


def row_record(row: Any) -> Record:
    """A record back from a row in `RECORD_COLUMNS` order."""
    values = dict(zip(RECORD_COLUMNS, row, strict=True))
    return Record(**values)


@dataclass(frozen=True, slots=True)
class MemberInfo:
    """A member as the record knows it: started at `started` and, once stopped, `stopped`."""

    actor_id: str
    name: str
    started: int
    stopped: int | None = None

    @property
    def alive(self) -> bool:
        """Whether the record has no stop for it (it was alive when the record ends)."""
        return self.stopped is None


@dataclass(frozen=True, slots=True)
class TeamInfo:
    """One team in a store: when it was created, how far its stream goes, what it spent."""

    team_id: str
    created: float
    metadata: dict[str, Any] = field(default_factory=dict)
    last_position: int = 0
    last_activity: float | None = None
    members: tuple[str, ...] = ()
    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
