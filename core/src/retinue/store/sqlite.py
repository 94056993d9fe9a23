"""`SQLiteStore`: the embedded default, one file in WAL mode (stdlib `sqlite3`).

Durability: each batch is one transaction. With `durability="process"` (the default,
`synchronous=NORMAL`) a committed batch is in the WAL file when `append` returns, so it
survives the process being killed (SIGKILL included) at any moment; a power loss or an
operating-system crash may lose the last batches committed but never leaves the file
inconsistent. `durability="power"` (`synchronous=FULL`) fsyncs every commit, surviving power
loss too, at the cost of one fsync per batch.

Opening checks the file before changing anything: a file that is not a SQLite database, a
SQLite database that is not a retinue store, and a store written by a newer schema are each
one `StoreError` (`SchemaVersionError` for the last), and the file is left as it was.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, Literal

from retinue.store.protocol import (
    APPLICATION,
    SCHEMA_VERSION,
    Store,
    StoreError,
    newer_schema_error,
    place_batch,
)
from retinue.store.records import MemberInfo, Record, TeamInfo, row_record
from retinue.store.retention import Retention
from retinue.store.sql import META, SCHEMA, Statements, batch_parameters, kinds_tuple

_HEADER = b"SQLite format 3\x00"
_PAGE = 500
_SQL = Statements("?")

Durability = Literal["process", "power"]


class SQLiteStore(Store):
    """A record in one SQLite file; `create=False` refuses a path with no store yet."""

    def __init__(
        self,
        path: str | Path,
        *,
        retention: Retention | None = None,
        durability: Durability = "process",
        create: bool = True,
    ) -> None:
        super().__init__(retention=retention)
        if durability not in ("process", "power"):
            raise ValueError(f"durability must be 'process' or 'power', not {durability!r}")
        self.path = Path(path)
        self.durability: Durability = durability
        self._lock = threading.RLock()
        self._conn = self._open(create)
        self._version = SCHEMA_VERSION

    # ------------------------------------------------------------------ opening
    def describe(self) -> str:
        return str(self.path)

    @property
    def schema_version(self) -> int:
        return self._version

    def _open(self, create: bool) -> sqlite3.Connection:
        where = self.describe()
        exists = self.path.exists()
        if exists and self.path.is_dir():
            raise StoreError(f"{where} is a directory, not a retinue store")
        if not exists and not create:
            raise StoreError(f"{where}: no such store")
        if exists and self.path.stat().st_size > 0:
            with self.path.open("rb") as handle:
                header = handle.read(len(_HEADER))
            if header != _HEADER:
                raise StoreError(f"{where} is not a retinue store (not a SQLite database)")
        try:
            conn = sqlite3.connect(
                self.path, isolation_level=None, check_same_thread=False, timeout=30.0
            )
        except sqlite3.Error as exc:
            raise StoreError(f"{where} could not be opened: {exc}") from exc
        try:
            fresh = self._check(conn, where)
            if fresh and not create:
                raise StoreError(f"{where}: no such store (an empty SQLite database)")
            conn.execute("PRAGMA journal_mode=WAL")
            sync = "FULL" if self.durability == "power" else "NORMAL"
            conn.execute(f"PRAGMA synchronous={sync}")
            if fresh:
                self._create(conn)
        except sqlite3.DatabaseError as exc:
            conn.close()
            raise StoreError(f"{where} is not a usable retinue store: {exc}") from exc
        except BaseException:
            conn.close()
            raise
        return conn

    @staticmethod
    def _check(conn: sqlite3.Connection, where: str) -> bool:
        """Read-only checks; True for a database with no tables yet (a new store)."""
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
        if not tables:
            return True
        if META not in tables:
            shown = ", ".join(sorted(tables)[:5])
            raise StoreError(
                f"{where} is a SQLite database but not a retinue store (it holds {shown})"
            )
        meta = dict(conn.execute(f"SELECT key, value FROM {META}").fetchall())
        if meta.get("application") != APPLICATION:
            raise StoreError(f"{where} is not a retinue store (its metadata names no retinue)")
        try:
            version = int(meta.get("schema_version", ""))
        except ValueError:
            raise StoreError(f"{where} has no readable schema version") from None
        if version > SCHEMA_VERSION:
            raise newer_schema_error(where, version)
        return False

    @staticmethod
    def _create(conn: sqlite3.Connection) -> None:
        conn.execute("BEGIN IMMEDIATE")
        try:
            for statement in SCHEMA:
                conn.execute(
                    statement.format(real="REAL", int="INTEGER", records_suffix=" WITHOUT ROWID")
                )
            conn.executemany(
                f"INSERT OR REPLACE INTO {META} (key, value) VALUES (?, ?)",
                [("application", APPLICATION), ("schema_version", str(SCHEMA_VERSION))],
            )
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    # ------------------------------------------------------------------ helpers
    def _query(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        with self._lock:
            try:
                return self._conn.execute(sql, params).fetchall()
            except sqlite3.Error as exc:
                raise StoreError(f"{self.describe()}: {exc}") from exc

    def _team_row(self, row: Any, members: tuple[str, ...]) -> TeamInfo:
        return TeamInfo(
            team_id=row[0],
            created=row[1],
            metadata=json.loads(row[2]),
            last_position=row[3],
            last_activity=row[4],
            members=members,
            requests=row[5],
            input_tokens=row[6],
            output_tokens=row[7],
            cost_usd=row[8],
        )

    def _alive(self, team_id: str) -> tuple[str, ...]:
        return tuple(row[0] for row in self._query(_SQL.alive_members, (team_id,)))

    # ------------------------------------------------------------------ teams
    def create_team(self, team_id: str, metadata: dict[str, Any] | None = None) -> TeamInfo:
        created = time.time()
        with self._lock:
            try:
                self._conn.execute(_SQL.insert_team, (team_id, created, json.dumps(metadata or {})))
            except sqlite3.IntegrityError:
                raise StoreError(f"{self.describe()} already has a team {team_id}") from None
            except sqlite3.Error as exc:
                raise StoreError(f"{self.describe()}: {exc}") from exc
        return TeamInfo(team_id=team_id, created=created, metadata=dict(metadata or {}))

    def team(self, team_id: str) -> TeamInfo | None:
        with self._lock:
            rows = self._query(_SQL.select_team, (team_id,))
            return self._team_row(rows[0], self._alive(team_id)) if rows else None

    def list_teams(self) -> list[TeamInfo]:
        with self._lock:
            rows = self._query(_SQL.select_teams)
            return [self._team_row(row, self._alive(row[0])) for row in rows]

    def delete_team(self, team_id: str) -> bool:
        with self._lock:
            found = bool(self._query(_SQL.select_team, (team_id,)))
            self._transaction(lambda c: [c.execute(s, (team_id,)) for s in _SQL.delete_team])
            return found

    def _transaction(self, work: Any) -> Any:
        with self._lock:
            conn = self._conn
            try:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    result = work(conn)
                    conn.execute("COMMIT")
                except BaseException:
                    conn.execute("ROLLBACK")
                    raise
            except sqlite3.Error as exc:
                raise StoreError(f"{self.describe()}: {exc}") from exc
            return result

    # ------------------------------------------------------------------ the stream
    def _append(self, team_id: str, records: Sequence[Record]) -> int:
        def write(conn: sqlite3.Connection) -> int:
            row = conn.execute(
                "SELECT last_position FROM retinue_teams WHERE team_id = ?", (team_id,)
            ).fetchone()
            if row is None:
                raise StoreError(f"{self.describe()} has no team {team_id}")
            batch = place_batch(team_id, row[0], records)
            rows, snapshots, started, stopped, team = batch_parameters(team_id, batch)
            conn.executemany(_SQL.insert_record, rows)
            if snapshots:
                conn.executemany(_SQL.upsert_snapshot, snapshots)
            if started:
                conn.executemany(_SQL.upsert_member, started)
            if stopped:
                conn.executemany(_SQL.stop_member, stopped)
            conn.execute(_SQL.update_team, team)
            return batch.last_position

        result: int = self._transaction(write)
        return result

    def read(
        self,
        team_id: str,
        after: int = 0,
        *,
        kinds: Iterable[str] | None = None,
        limit: int | None = None,
    ) -> Iterator[Record]:
        if self.team(team_id) is None:
            raise StoreError(f"{self.describe()} has no team {team_id}")
        wanted = kinds_tuple(kinds)
        left = limit
        while left is None or left > 0:
            page = _PAGE if left is None else min(_PAGE, left)
            if wanted is None:
                rows = self._query(_SQL.select_page, (team_id, after, page))
            else:
                sql = _SQL.page_with_kinds("?", len(wanted))
                rows = self._query(sql, (team_id, after, *wanted, page))
            for row in rows:
                record = row_record(row)
                after = record.position
                yield record
            if left is not None:
                left -= len(rows)
            if len(rows) < page:
                return

    def snapshots(self, team_id: str) -> dict[str, Record]:
        rows = self._query(_SQL.select_snapshots, (team_id,))
        records = [row_record(row) for row in rows]
        return {r.actor_id: r for r in records if r.actor_id is not None}

    def members(self, team_id: str) -> list[MemberInfo]:
        rows = self._query(_SQL.select_members, (team_id,))
        return [MemberInfo(actor_id=a, name=n, started=s, stopped=t) for a, n, s, t in rows]

    def prune(self, team_id: str, retention: Retention | None = None) -> int:
        rules = retention if retention is not None else self.retention
        telemetry = kinds_tuple(rules.telemetry) or ()

        def delete(conn: sqlite3.Connection) -> int:
            gone = 0
            if telemetry and rules.keep_telemetry is not None:
                sql = _SQL.prune_telemetry("?", len(telemetry))
                params = (team_id, *telemetry, team_id, *telemetry, rules.keep_telemetry)
                gone += conn.execute(sql, params).rowcount
            if not rules.keep_superseded_checkpoints:
                gone += conn.execute(_SQL.prune_checkpoints, (team_id, team_id)).rowcount
            return gone

        result: int = self._transaction(delete)
        return result

    def close(self) -> None:
        with self._lock:
            self._conn.close()
