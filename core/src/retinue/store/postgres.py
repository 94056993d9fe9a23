"""`PostgresStore`: the record in a PostgreSQL database (psycopg 3; `retinue[postgres]`).

For teams that outgrow one file or one machine: many processes may write their teams to one
database, and readers (`retinue log --follow`) watch from anywhere. The tables are those of
`retinue.store.sql`, beside whatever else the database holds. Each batch is one transaction
committed with the server's `synchronous_commit` (on by default: durable when `append`
returns, through a crash of the writer, the server or the machine). Two writers of one team
are serialized by a row lock on the team.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, TypeVar

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

try:
    import psycopg
except ImportError as exc:  # pragma: no cover - depends on the installation
    raise StoreError(
        "a postgresql:// store needs psycopg 3: pip install 'retinue[postgres]'"
    ) from exc

T = TypeVar("T")
_PAGE = 500
_SQL = Statements("%s")
_PASSWORD = re.compile(r"(://[^:/@]+:)[^@]*@")
#: Serializes schema creation between processes (any fixed number of our own).
_SCHEMA_LOCK = 0x7265_7469_6E75


def redact_url(url: str) -> str:
    """The URL without its password, for messages."""
    return _PASSWORD.sub(r"\1***@", url)


class PostgresStore(Store):
    """A record in a PostgreSQL database; `create=False` refuses one with no store yet."""

    def __init__(
        self, url: str, *, retention: Retention | None = None, create: bool = True
    ) -> None:
        super().__init__(retention=retention)
        self.url = url
        self._lock = threading.RLock()
        try:
            self._conn = psycopg.connect(url, autocommit=True)
        except psycopg.Error as exc:
            raise StoreError(f"{self.describe()} could not be opened: {exc}") from exc
        try:
            self._prepare(create)
        except BaseException:
            self._conn.close()
            raise

    def describe(self) -> str:
        return redact_url(self.url)

    @property
    def schema_version(self) -> int:
        return SCHEMA_VERSION

    def _prepare(self, create: bool) -> None:
        where = self.describe()
        with self._conn.transaction():
            exists = self._conn.execute("SELECT to_regclass(%s)", (META,)).fetchone()
            if exists is not None and exists[0] is not None:
                rows = self._conn.execute(f"SELECT key, value FROM {META}").fetchall()
                meta: dict[str, str] = {str(k): str(v) for k, v in rows}
                if meta.get("application") != APPLICATION:
                    raise StoreError(f"{where} has a {META} table that names no retinue")
                try:
                    version = int(meta.get("schema_version", ""))
                except ValueError:
                    raise StoreError(f"{where} has no readable schema version") from None
                if version > SCHEMA_VERSION:
                    raise newer_schema_error(where, version)
                return
            if not create:
                raise StoreError(f"{where}: no such store (no retinue tables)")
            self._conn.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
            for statement in SCHEMA:
                self._conn.execute(
                    statement.format(real="DOUBLE PRECISION", int="BIGINT", records_suffix="")
                )
            self._conn.cursor().executemany(
                f"INSERT INTO {META} (key, value) VALUES (%s, %s) ON CONFLICT (key) DO NOTHING",
                [("application", APPLICATION), ("schema_version", str(SCHEMA_VERSION))],
            )

    # ------------------------------------------------------------------ helpers
    def _run(self, work: Callable[[psycopg.Connection[Any]], T]) -> T:
        """`work` in one transaction, errors as `StoreError`."""
        with self._lock:
            try:
                with self._conn.transaction():
                    return work(self._conn)
            except psycopg.Error as exc:
                raise StoreError(f"{self.describe()}: {exc}") from exc

    def _query(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        return self._run(lambda conn: conn.execute(sql, params).fetchall())

    def _info(self, conn: psycopg.Connection[Any], row: Any) -> TeamInfo:
        alive = conn.execute(_SQL.alive_members, (row[0],)).fetchall()
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

        def insert(conn: psycopg.Connection[Any]) -> None:
            found = conn.execute(_SQL.select_team, (team_id,)).fetchone()
            if found is not None:
                raise StoreError(f"{self.describe()} already has a team {team_id}")
            conn.execute(_SQL.insert_team, (team_id, created, json.dumps(metadata or {})))

        self._run(insert)
        return TeamInfo(team_id=team_id, created=created, metadata=dict(metadata or {}))

    def team(self, team_id: str) -> TeamInfo | None:
        def read(conn: psycopg.Connection[Any]) -> TeamInfo | None:
            row = conn.execute(_SQL.select_team, (team_id,)).fetchone()
            return None if row is None else self._info(conn, row)

        return self._run(read)

    def list_teams(self) -> list[TeamInfo]:
        return self._run(
            lambda conn: [self._info(conn, row) for row in conn.execute(_SQL.select_teams)]
        )

    def delete_team(self, team_id: str) -> bool:
        def delete(conn: psycopg.Connection[Any]) -> bool:
            found = conn.execute(_SQL.select_team, (team_id,)).fetchone() is not None
            for statement in _SQL.delete_team:
                conn.execute(statement, (team_id,))
            return found

        return self._run(delete)

    # ------------------------------------------------------------------ the stream
    def _append(self, team_id: str, records: Sequence[Record]) -> int:
        def write(conn: psycopg.Connection[Any]) -> int:
            row = conn.execute(
                "SELECT last_position FROM retinue_teams WHERE team_id = %s FOR UPDATE",
                (team_id,),
            ).fetchone()
            if row is None:
                raise StoreError(f"{self.describe()} has no team {team_id}")
            batch = place_batch(team_id, row[0], records)
            rows, snapshots, started, stopped, team = batch_parameters(team_id, batch)
            cursor = conn.cursor()
            cursor.executemany(_SQL.insert_record, rows)
            if snapshots:
                cursor.executemany(_SQL.upsert_snapshot, snapshots)
            if started:
                cursor.executemany(_SQL.upsert_member, started)
            if stopped:
                cursor.executemany(_SQL.stop_member, stopped)
            conn.execute(_SQL.update_team, team)
            return batch.last_position

        return self._run(write)

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
                sql = _SQL.page_with_kinds("%s", len(wanted))
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
        records = [row_record(row) for row in self._query(_SQL.select_snapshots, (team_id,))]
        return {r.actor_id: r for r in records if r.actor_id is not None}

    def members(self, team_id: str) -> list[MemberInfo]:
        rows = self._query(_SQL.select_members, (team_id,))
        return [MemberInfo(actor_id=a, name=n, started=s, stopped=t) for a, n, s, t in rows]

    def prune(self, team_id: str, retention: Retention | None = None) -> int:
        rules = retention if retention is not None else self.retention
        telemetry = kinds_tuple(rules.telemetry) or ()

        def delete(conn: psycopg.Connection[Any]) -> int:
            gone = 0
            if telemetry and rules.keep_telemetry is not None:
                sql = _SQL.prune_telemetry("%s", len(telemetry))
                params = (team_id, *telemetry, team_id, *telemetry, rules.keep_telemetry)
                gone += conn.execute(sql, params).rowcount
            if not rules.keep_superseded_checkpoints:
                gone += conn.execute(_SQL.prune_checkpoints, (team_id, team_id)).rowcount
            return gone

        return self._run(delete)

    def close(self) -> None:
        with self._lock:
            self._conn.close()
