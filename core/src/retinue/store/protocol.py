"""`Store`: the protocol every team record store implements, and what they share.

A store holds teams; each team has one stream of `Record`s in order (positions 1, 2, 3, ...),
appended in batches, each batch atomically (all of it or none of it is there after a crash).
Beside the stream a store keeps, in the same transaction as the batch that changed them:

- the snapshots: each actor's latest checkpoint (`StateChangedMessage` record), so a resume
  reads one record per actor instead of replaying every checkpoint;
- the members: every member started in the team (a `StartMessage` record; not an actor
  attached with `member=False`, nor the orchestrator, whose id is the team id) and, once it
  left, where (`StopMessage`). A stop caused by a shutdown is no departure: the member's
  process ended, and a resume brings it back;
- the team's summary: last position, last activity, usage totals (`TeamInfo`).

And a lease per team running somewhere (`take_lease`): one live owner per team, see
`retinue.store.lease`.

Implementations: `MemoryStore` (tests), `SQLiteStore` (the embedded default) and
`PostgresStore` (`retinue[postgres]`); `open_store` picks one from a path or URL.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

from retinue.store.errors import (
    LeaseHeldError,
    SchemaVersionError,
    StoreError,
    StoreFullError,
)
from retinue.store.lease import Lease, LeaseKeeper, lease_length
from retinue.store.records import MemberInfo, Record, TeamInfo
from retinue.store.retention import CHECKPOINT, START, STOP, Retention

__all__ = [
    "APPLICATION",
    "SCHEMA_VERSION",
    "Batch",
    "LeaseHeldError",
    "SchemaVersionError",
    "Store",
    "StoreError",
    "StoreFullError",
    "check_schema_version",
    "place_batch",
]

#: The layout version this code writes; a store written by a newer one is refused.
SCHEMA_VERSION = 1
#: What a store's metadata names as its writer: a file without it is not a retinue store.
APPLICATION = "retinue"


def check_schema_version(where: str, meta: Mapping[str, str]) -> None:
    """Refuse a SQL store whose metadata names no readable schema version (`StoreError`), or
    a newer one than this retinue reads (`SchemaVersionError`)."""
    try:
        found = int(meta.get("schema_version", ""))
    except ValueError:
        raise StoreError(f"{where} has no readable schema version") from None
    if found > SCHEMA_VERSION:
        raise SchemaVersionError(
            f"{where} was written by a newer retinue (record schema {found}; this retinue reads "
            f"up to {SCHEMA_VERSION}): upgrade retinue to read it; the store was not changed"
        )


@dataclass(slots=True)
class Batch:
    """A batch placed in its team's stream, with what it changes beside the stream."""

    records: list[Record]
    snapshots: dict[str, Record] = field(default_factory=dict)
    started: dict[str, tuple[str, int]] = field(default_factory=dict)
    stopped: dict[str, int] = field(default_factory=dict)
    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    last_activity: float | None = None

    @property
    def last_position(self) -> int:
        return self.records[-1].position


def place_batch(team_id: str, last_position: int, records: Iterable[Record]) -> Batch:
    """Number `records` after `last_position` and work out what they change (the shared rule)."""
    batch = Batch(records=[])
    position = last_position
    for record in records:
        position += 1
        placed = record.placed(team_id, position)
        batch.records.append(placed)
        actor = placed.actor_id
        if placed.kind == CHECKPOINT and actor is not None:
            batch.snapshots[actor] = placed
        elif placed.kind in (START, STOP) and actor is not None and actor != team_id:
            _membership(batch, placed, actor, position)
        batch.requests += placed.requests
        batch.input_tokens += placed.input_tokens
        batch.output_tokens += placed.output_tokens
        batch.cost_usd += placed.cost_usd
        if batch.last_activity is None or placed.timestamp > batch.last_activity:
            batch.last_activity = placed.timestamp
    return batch


def _membership(batch: Batch, placed: Record, actor: str, position: int) -> None:
    """A start makes a member (not an attached actor); a stop ends one (not a shutdown)."""
    if placed.kind == START:
        if _field(placed, "member") is not False:
            batch.started[actor] = (placed.sender or "", position)
            batch.stopped.pop(actor, None)
    elif _field(placed, "shutdown") is not True:
        batch.stopped[actor] = position


def _field(record: Record, name: str) -> object:
    """A top-level field of the record's message (start and stop records only: rare)."""
    try:
        data = json.loads(record.data)
    except ValueError:
        return None
    return data.get(name) if isinstance(data, dict) else None


class Store(ABC):
    """A team record store (see the module docstring). Safe to share between threads."""

    def __init__(
        self, *, retention: Retention | None = None, lease_seconds: float | None = None
    ) -> None:
        #: What `prune` keeps; the recorder prunes every `retention.every` records.
        self.retention = retention if retention is not None else Retention()
        #: The team leases this store holds (`lease_seconds`: how long one lasts unrenewed,
        #: default `$RETINUE_LEASE_SECONDS` or 15).
        self.leases = LeaseKeeper(self, lease_length(lease_seconds))

    # ------------------------------------------------------------------ what it is
    @property
    @abstractmethod
    def schema_version(self) -> int:
        """The record schema the store is laid out in (`SCHEMA_VERSION` once opened)."""

    @abstractmethod
    def describe(self) -> str:
        """Where the store is, for messages (a path, or a URL without its password)."""

    # ------------------------------------------------------------------ teams
    @abstractmethod
    def create_team(self, team_id: str, metadata: dict[str, Any] | None = None) -> TeamInfo:
        """Add an empty team; `StoreError` if one with this id exists."""

    @abstractmethod
    def team(self, team_id: str) -> TeamInfo | None:
        """The team's summary, or None."""

    @abstractmethod
    def list_teams(self) -> list[TeamInfo]:
        """Every team, the oldest first."""

    @abstractmethod
    def delete_team(self, team_id: str) -> bool:
        """Remove a team and its whole stream; False if there was none."""

    # ------------------------------------------------------------------ the stream
    def append(self, team_id: str, records: Sequence[Record]) -> int:
        """Append a batch at the end of the team's stream, atomically; the last position.

        The batch is durable once this returns (see each store for what survives what).
        `StoreError` if the team does not exist.
        """
        if not records:
            info = self.team(team_id)
            if info is None:
                raise StoreError(f"{self.describe()} has no team {team_id}")
            return info.last_position
        return self._append(team_id, records)

    @abstractmethod
    def _append(self, team_id: str, records: Sequence[Record]) -> int:
        """Place the batch (`place_batch`), write it and its effects in one transaction."""

    def read(
        self,
        team_id: str,
        after: int = 0,
        *,
        kinds: Iterable[str] | None = None,
        limit: int | None = None,
    ) -> Iterator[Record]:
        """The team's records after position `after`, in order (only `kinds`, at most `limit`).

        Read in pages, so a long stream is never all in memory. `StoreError`, at the first
        record asked for, if the team does not exist.
        """
        if self.team(team_id) is None:
            raise StoreError(f"{self.describe()} has no team {team_id}")
        wanted = None if kinds is None else tuple(sorted(set(kinds)))
        yield from self._records(team_id, after, wanted, limit)

    @abstractmethod
    def _records(
        self, team_id: str, after: int, kinds: tuple[str, ...] | None, limit: int | None
    ) -> Iterator[Record]:
        """Yield the records of an existing team after `after`: only `kinds` (None: every
        kind; else sorted, each once), at most `limit`."""

    @abstractmethod
    def snapshots(self, team_id: str) -> dict[str, Record]:
        """Each actor's latest checkpoint record, by actor id."""

    @abstractmethod
    def members(self, team_id: str) -> list[MemberInfo]:
        """Every actor started in the team, in the order they (last) started."""

    @abstractmethod
    def prune(self, team_id: str, retention: Retention | None = None) -> int:
        """Delete what `retention` (default: the store's) lets go; how many records went.

        Positions are never reused: a pruned record leaves a hole in the numbering.
        """

    # ------------------------------------------------------------------ the lease
    def take_lease(self, team_id: str) -> None:
        """Hold `team_id` while this process runs it; `LeaseHeldError` naming the holder when
        another live process does. Taken again by the same store it is held once more: each
        take wants its `release_lease`."""
        self.leases.take(team_id)

    def release_lease(self, team_id: str) -> None:
        """Give back one `take_lease`; the last lets the team go."""
        self.leases.release(team_id)

    @abstractmethod
    def lease(self, team_id: str) -> Lease | None:
        """Who holds the team's lease (an expired one too), or None."""

    @abstractmethod
    def claim_lease(self, team_id: str, owner: str, seconds: float) -> Lease | None:
        """In one transaction: write `owner`'s lease unless its holder may not be replaced
        (`lease.may_take`); that holder, or None once the lease is `owner`'s.

        The lease row's writes (this and the two below) are a store's to implement and its
        `LeaseKeeper`'s to call; code that runs a team calls `take_lease`."""

    @abstractmethod
    def renew_lease(self, team_id: str, owner: str, seconds: float) -> bool:
        """Extend `owner`'s lease by `seconds` from now; False when it is no longer its."""

    @abstractmethod
    def drop_lease(self, team_id: str, owner: str) -> None:
        """Delete `owner`'s lease (nothing if another holds it now)."""

    # ------------------------------------------------------------------ closing
    @abstractmethod
    def close(self) -> None:
        """Let the leases go, release the file or connection; the store is unusable after."""

    def __enter__(self) -> Store:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
