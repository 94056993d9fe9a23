"""`SQLStore`: what the SQLite and PostgreSQL stores do alike, over a DB-API connection.

The two databases share the tables and statements (`retinue.store.sql`) and every
operation on them; they differ in how a connection is opened and checked, how a
transaction begins and ends, and which exception a driver raises. A subclass supplies those
three as `_write` and `_read` (and its clock for leases, `_now`); everything a store does is
written here once.
"""

from __future__ import annotations

import json
import threading
import time
from abc import abstractmethod
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from retinue.store.lease import Lease, held_elsewhere, may_take, this_process
from retinue.store.protocol import Store, StoreError, place_batch
from retinue.store.records import MemberInfo, Record, TeamInfo, row_record
from retinue.store.retention import Retention
from retinue.store.sql import (
    CREATE_LEASES,
    Statements,
    batch_parameters,
    kinds_tuple,
    lease_row,
    row_lease,
)

T = TypeVar("T")
#: Records read from the database at a time while a reader iterates a stream.
PAGE = 500


class SQLStore(Store):
    """A record in SQL tables; subclasses give the dialect and the transactions."""

    _sql: Statements
    _lock: threading.RLock
    _conn: Any
    #: Whether the leases table exists (made by the first lease taken in this store).
    _has_leases: bool = False
    #: The leases table's column types in this dialect.
    _types: dict[str, str]

    @abstractmethod
    def _write(self, work: Callable[[Any], T]) -> T:
        """`work(connection)` in one write transaction; driver errors as `StoreError`."""

    @abstractmethod
    def _read(self, work: Callable[[Any], T]) -> T:
        """`work(connection)` as one consistent read; driver errors as `StoreError`."""

    def _now(self, conn: Any) -> float:
        """Seconds since the epoch, by the clock every holder of a lease here shares."""
        return time.time()

    def _query(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        return self._read(lambda conn: conn.execute(sql, params).fetchall())

    def _team_info(self, conn: Any, row: Sequence[Any]) -> TeamInfo:
        alive = conn.execute(self._sql.alive_members, (row[0],)).fetchall()
        return TeamInfo(
            team_id=row[0],
            created=row[1],
            metadata=json.loads(row[2]),
            last_position=row[3],
            last_activity=row[4],
            members=tuple(name for (name,) in alive),
            requests=row[5],
            input_tokens=row[6],
            output_tokens=row[7],
            cost_usd=row[8],
        )

    # ------------------------------------------------------------------ teams
    def create_team(self, team_id: str, metadata: dict[str, Any] | None = None) -> TeamInfo:
        created = time.time()

        def insert(conn: Any) -> None:
            if conn.execute(self._sql.select_team, (team_id,)).fetchone() is not None:
                raise StoreError(f"{self.describe()} already has a team {team_id}")
            conn.execute(self._sql.insert_team, (team_id, created, json.dumps(metadata or {})))

        self._write(insert)
        return TeamInfo(team_id=team_id, created=created, metadata=dict(metadata or {}))

    def team(self, team_id: str) -> TeamInfo | None:
        def read(conn: Any) -> TeamInfo | None:
            row = conn.execute(self._sql.select_team, (team_id,)).fetchone()
            return None if row is None else self._team_info(conn, row)

        return self._read(read)

    def list_teams(self) -> list[TeamInfo]:
        return self._read(
            lambda conn: [
                self._team_info(conn, row)
                for row in conn.execute(self._sql.select_teams).fetchall()
            ]
        )

    def delete_team(self, team_id: str) -> bool:
        def delete(conn: Any) -> bool:
            found = conn.execute(self._sql.select_team, (team_id,)).fetchone() is not None
            for statement in self._sql.delete_team:
                conn.execute(statement, (team_id,))
            return found

        return self._write(delete)

    # ------------------------------------------------------------------ the stream
    def _append(self, team_id: str, records: Sequence[Record]) -> int:
        def write(conn: Any) -> int:
            row = conn.execute(self._sql.last_position, (team_id,)).fetchone()
            if row is None:
                raise StoreError(f"{self.describe()} has no team {team_id}")
            if self._has_leases:
                self._refuse_if_leased(conn, team_id)
            batch = place_batch(team_id, row[0], records)
            rows, snapshots, started, stopped, team = batch_parameters(team_id, batch)
            cursor = conn.cursor()
            cursor.executemany(self._sql.insert_record, rows)
            if snapshots:
                cursor.executemany(self._sql.upsert_snapshot, snapshots)
            if started:
                cursor.executemany(self._sql.upsert_member, started)
            if stopped:
                cursor.executemany(self._sql.stop_member, stopped)
            conn.execute(self._sql.update_team, team)
            return batch.last_position

        return self._write(write)

    def _records(
        self, team_id: str, after: int, kinds: tuple[str, ...] | None, limit: int | None
    ) -> Iterator[Record]:
        left = limit
        while left is None or left > 0:
            page = PAGE if left is None else min(PAGE, left)
            if kinds is None:
                rows = self._query(self._sql.select_page, (team_id, after, page))
            else:
                sql = self._sql.page_with_kinds(len(kinds))
                rows = self._query(sql, (team_id, after, *kinds, page))
            for row in rows:
                record = row_record(row)
                after = record.position
                yield record
            if left is not None:
                left -= len(rows)
            if len(rows) < page:
                return

    def snapshots(self, team_id: str) -> dict[str, Record]:
        records = [row_record(row) for row in self._query(self._sql.select_snapshots, (team_id,))]
        return {r.actor_id: r for r in records if r.actor_id is not None}

    def members(self, team_id: str) -> list[MemberInfo]:
        rows = self._query(self._sql.select_members, (team_id,))
        return [MemberInfo(actor_id=a, name=n, started=s, stopped=t) for a, n, s, t in rows]

    def prune(self, team_id: str, retention: Retention | None = None) -> int:
        rules = retention if retention is not None else self.retention
        telemetry = kinds_tuple(rules.telemetry) or ()

        def delete(conn: Any) -> int:
            gone = 0
            if telemetry and rules.keep_telemetry is not None:
                sql = self._sql.prune_telemetry(len(telemetry))
                params = (team_id, *telemetry, team_id, *telemetry, rules.keep_telemetry)
                gone += conn.execute(sql, params).rowcount
            if not rules.keep_superseded_checkpoints:
                gone += conn.execute(self._sql.prune_checkpoints, (team_id, team_id)).rowcount
            return int(gone)

        return self._write(delete)

    # ------------------------------------------------------------------ the lease
    def _refuse_if_leased(self, conn: Any, team_id: str) -> None:
        """A batch of a team another live process holds is refused (it took the team over)."""
        row = conn.execute(self._sql.select_lease, (team_id,)).fetchone()
        owner = self.leases.owner
        if row is None or row[0] == owner:
            return
        holder = row_lease(row)
        if not may_take(holder, owner, self._now(conn)):
            raise held_elsewhere(team_id, holder)

    def lease(self, team_id: str) -> Lease | None:
        try:
            row = self._read(
                lambda conn: conn.execute(self._sql.select_lease, (team_id,)).fetchone()
            )
        except StoreError:
            if self._has_leases:
                raise
            return None  # no table: no lease was ever taken in this store
        self._has_leases = True
        return None if row is None else row_lease(row)

    def claim_lease(self, team_id: str, owner: str, seconds: float) -> Lease | None:
        def claim(conn: Any) -> Lease | None:
            if not self._has_leases:
                self._before_schema_change(conn)
                conn.execute(CREATE_LEASES.format(**self._types))
            if self._sql.lock_lease:
                conn.execute(self._sql.lock_lease, (team_id,))
            row = conn.execute(self._sql.select_lease, (team_id,)).fetchone()
            current = None if row is None else row_lease(row)
            now = self._now(conn)
            if not may_take(current, owner, now):
                return current
            mine = this_process(owner, now, seconds)
            conn.execute(self._sql.upsert_lease, lease_row(team_id, mine))
            return None

        holder = self._write(claim)
        self._has_leases = True
        return holder

    def renew_lease(self, team_id: str, owner: str, seconds: float) -> bool:
        def renew(conn: Any) -> bool:
            expires = self._now(conn) + seconds
            return bool(conn.execute(self._sql.renew_lease, (expires, team_id, owner)).rowcount)

        return self._write(renew)

    def drop_lease(self, team_id: str, owner: str) -> None:
        self._write(lambda conn: conn.execute(self._sql.drop_lease, (team_id, owner)))

    def _before_schema_change(self, conn: Any) -> None:
        """Called in the transaction that makes the leases table (PostgreSQL serializes it)."""

    def close(self) -> None:
        self.leases.close()
        with self._lock:
            self._conn.close()
