"""A forked team's record reads through its origin: the source's records up to the fork's
position, then its own.

A fork's own stream starts with one `TeamForkedEvent` (position 1) naming the team and the
position it was forked at; the source's stream is never written to. So reading a fork
(to resume it, or to fork it again) reads the source's records up to that position first,
recursively for a fork of a fork, and then the fork's own. The source must stay in the
store for its forks to resume.
"""

from __future__ import annotations

from collections.abc import Iterator

from pydantic import BaseModel

from retinue.store import Record, Store
from retinue.team.record_codec import RecordDecodeError, decode

#: The store metadata key of a fork's origin (`{"team_id": ..., "position": ...}`).
FORKED_FROM = "forked_from"
#: The most forks a lineage may go back through (a loop in a damaged store ends here).
MAX_DEPTH = 100


class TeamForkedEvent(BaseModel):
    """The first record of a forked team: it goes on from `source_team_id` at `position`."""

    source_team_id: str
    position: int


def fork_origin(store: Store, team_id: str) -> TeamForkedEvent | None:
    """What `team_id` was forked from, read from its first record; None for an original."""
    for record in store.read(team_id, limit=1):
        if record.kind != TeamForkedEvent.__name__:
            return None
        try:
            message = decode(record.data)
        except RecordDecodeError:
            return None
        event = getattr(message, "event", None)
        return event if isinstance(event, TeamForkedEvent) else None
    return None


def lineage_records(
    store: Store, team_id: str, upto: int | None = None, depth: int = 0
) -> Iterator[tuple[str, Record]]:
    """Each record a team's state is folded from, with the team whose stream holds it:
    the origin's up to the fork's position first (for a fork), then the team's own, up to
    `upto` when given."""
    origin = fork_origin(store, team_id) if depth < MAX_DEPTH else None
    if origin is not None:
        yield from lineage_records(store, origin.source_team_id, origin.position, depth + 1)
    for record in store.read(team_id):
        if upto is not None and record.position > upto:
            return
        yield team_id, record
