"""`MemoryStore`: the record in this process's memory, for tests; gone with the process."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from retinue.store.lease import Lease, held_elsewhere, may_take, this_process
from retinue.store.protocol import SCHEMA_VERSION, Store, StoreError, place_batch
from retinue.store.records import MemberInfo, Record, TeamInfo
from retinue.store.retention import CHECKPOINT, Retention


@dataclass(slots=True)
class _Team:
    info: TeamInfo
    records: list[Record] = field(default_factory=list)
    snapshots: dict[str, Record] = field(default_factory=dict)
    members: dict[str, MemberInfo] = field(default_factory=dict)


class MemoryStore(Store):
    """The protocol over dicts and lists under one lock."""

    def __init__(
        self, *, retention: Retention | None = None, lease_seconds: float | None = None
    ) -> None:
        super().__init__(retention=retention, lease_seconds=lease_seconds)
        self._teams: dict[str, _Team] = {}
        self._leases: dict[str, Lease] = {}
        self._lock = threading.Lock()

    @property
    def schema_version(self) -> int:
        return SCHEMA_VERSION

    def describe(self) -> str:
        return "the in-memory store"

    def create_team(self, team_id: str, metadata: dict[str, Any] | None = None) -> TeamInfo:
        with self._lock:
            if team_id in self._teams:
                raise StoreError(f"{self.describe()} already has a team {team_id}")
            info = TeamInfo(team_id=team_id, created=time.time(), metadata=dict(metadata or {}))
            self._teams[team_id] = _Team(info=info)
            return info

    def team(self, team_id: str) -> TeamInfo | None:
        with self._lock:
            team = self._teams.get(team_id)
            return None if team is None else self._info(team)

    def list_teams(self) -> list[TeamInfo]:
        with self._lock:
            teams = sorted(self._teams.values(), key=lambda t: t.info.created)
            return [self._info(team) for team in teams]

    def delete_team(self, team_id: str) -> bool:
        with self._lock:
            return self._teams.pop(team_id, None) is not None

    @staticmethod
    def _info(team: _Team) -> TeamInfo:
        alive = tuple(m.name for m in team.members.values() if m.alive)
        return replace(team.info, members=alive)

    def _team(self, team_id: str) -> _Team:
        team = self._teams.get(team_id)
        if team is None:
            raise StoreError(f"{self.describe()} has no team {team_id}")
        return team

    def _append(self, team_id: str, records: Sequence[Record]) -> int:
        with self._lock:
            team = self._team(team_id)
            holder = self._leases.get(team_id)
            if not may_take(holder, self.leases.owner, time.time()):
                assert holder is not None
                raise held_elsewhere(team_id, holder)
            batch = place_batch(team_id, team.info.last_position, records)
            team.records.extend(batch.records)
            team.snapshots.update(batch.snapshots)
            for actor, (name, position) in batch.started.items():
                team.members.pop(actor, None)  # a restarted member moves to the end
                team.members[actor] = MemberInfo(actor_id=actor, name=name, started=position)
            for actor, position in batch.stopped.items():
                member = team.members.get(actor)
                if member is not None:
                    team.members[actor] = replace(member, stopped=position)
            info = team.info
            team.info = replace(
                info,
                last_position=batch.last_position,
                last_activity=max(info.last_activity or 0.0, batch.last_activity or 0.0),
                requests=info.requests + batch.requests,
                input_tokens=info.input_tokens + batch.input_tokens,
                output_tokens=info.output_tokens + batch.output_tokens,
                cost_usd=info.cost_usd + batch.cost_usd,
            )
            return batch.last_position

    def _records(
        self, team_id: str, after: int, kinds: tuple[str, ...] | None, limit: int | None
    ) -> Iterator[Record]:
        with self._lock:
            records = list(self._team(team_id).records)
        count = 0
        for record in records:  # a copy of the list: appends go on meanwhile
            if record.position <= after or (kinds is not None and record.kind not in kinds):
                continue
            if limit is not None and count >= limit:
                return
            count += 1
            yield record

    def snapshots(self, team_id: str) -> dict[str, Record]:
        with self._lock:
            return dict(self._team(team_id).snapshots)

    def members(self, team_id: str) -> list[MemberInfo]:
        with self._lock:
            return list(self._team(team_id).members.values())

    def prune(self, team_id: str, retention: Retention | None = None) -> int:
        rules = retention if retention is not None else self.retention
        with self._lock:
            team = self._team(team_id)
            keep_checkpoints = {r.position for r in team.snapshots.values()}
            telemetry = [r.position for r in team.records if r.kind in rules.telemetry]
            drop: set[int] = set()
            if rules.keep_telemetry is not None:
                cut = len(telemetry) - rules.keep_telemetry
                drop.update(telemetry[: max(cut, 0)])
            if not rules.keep_superseded_checkpoints:
                drop.update(
                    r.position
                    for r in team.records
                    if r.kind == CHECKPOINT and r.position not in keep_checkpoints
                )
            if drop:
                team.records = [r for r in team.records if r.position not in drop]
            return len(drop)

    def lease(self, team_id: str) -> Lease | None:
        with self._lock:
            return self._leases.get(team_id)

    def claim_lease(self, team_id: str, owner: str, seconds: float) -> Lease | None:
        with self._lock:
            current = self._leases.get(team_id)
            now = time.time()
            if not may_take(current, owner, now):
                return current
            self._leases[team_id] = this_process(owner, now, seconds)
            return None

    def renew_lease(self, team_id: str, owner: str, seconds: float) -> bool:
        with self._lock:
            current = self._leases.get(team_id)
            if current is None or current.owner != owner:
                return False
            self._leases[team_id] = replace(current, expires=time.time() + seconds)
            return True

    def drop_lease(self, team_id: str, owner: str) -> None:
        with self._lock:
            current = self._leases.get(team_id)
            if current is not None and current.owner == owner:
                del self._leases[team_id]

    def close(self) -> None:
        """Lets the leases go; the records stay readable until the store is dropped."""
        self.leases.close()
