"""`PostgresStore`: the record in a PostgreSQL database (psycopg 3; `retinue[postgres]`).

For teams that outgrow one file or one machine: many processes may write their teams to one
database, and readers (`retinue log --follow`) watch from anywhere. The tables are those of
`retinue.store.sql`, beside whatever else the database holds. Each batch is one transaction
committed with the server's `synchronous_commit` (on by default: durable when `append`
returns, through a crash of the writer, the server or the machine). Two writers of one team
are serialized by a row lock on the team. A lease's clock is the server's, so holders on
machines whose clocks disagree still agree on when a lease ends. A write the server's disk
has no room for is a `StoreFullError`.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from retinue.store.protocol import (
    APPLICATION,
    SCHEMA_VERSION,
    StoreError,
    StoreFullError,
    check_schema_version,
)
from retinue.store.retention import Retention
from retinue.store.sql import LAYOUT, LEASES, META, SCHEMA, Statements, layout_problems
from retinue.store.sql_store import SQLStore

try:
    import psycopg
except ImportError as exc:  # pragma: no cover - depends on the installation
    raise StoreError(
        "a postgresql:// store needs psycopg 3: pip install 'retinue[postgres]'"
    ) from exc

T = TypeVar("T")
_PASSWORD = re.compile(r"(://[^:/@]+:)[^@]*@")
#: Serializes schema creation between processes (any fixed number of our own).
_SCHEMA_LOCK = 0x7265_7469_6E75
#: The SQLSTATE of a write the server's disk has no room for.
_DISK_FULL = "53100"


def redact_url(url: str) -> str:
    """The URL without its password, for messages."""
    return _PASSWORD.sub(r"\1***@", url)


class PostgresStore(SQLStore):
    """A record in a PostgreSQL database; `create=False` refuses one with no store yet."""

    def __init__(
        self,
        url: str,
        *,
        retention: Retention | None = None,
        create: bool = True,
        lease_seconds: float | None = None,
    ) -> None:
        super().__init__(retention=retention, lease_seconds=lease_seconds)
        self.url = url
        self._lock = threading.RLock()
        self._sql = Statements(
            "%s",
            lock_team=" FOR UPDATE",
            lock_lease="SELECT pg_advisory_xact_lock(hashtext('retinue_lease:' || %s))",
        )
        self._types = {"real": "DOUBLE PRECISION", "int": "BIGINT"}
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
                check_schema_version(where, meta)
                self._check_layout(where)
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

    def _check_layout(self, where: str) -> None:
        """Refuse a store missing a table or a column it needs (nothing was written)."""
        rows = self._conn.execute(
            "SELECT table_name, column_name FROM information_schema.columns"
            " WHERE table_schema = current_schema() AND table_name = ANY(%s)",
            ([*LAYOUT, LEASES],),
        ).fetchall()
        found: dict[str, set[str]] = {}
        for table, column in rows:
            found.setdefault(str(table), set()).add(str(column))
        self._has_leases = LEASES in found
        problems = layout_problems(found)
        if problems:
            raise StoreError(f"{where} is not a usable retinue store: {'; '.join(problems)}")

    # ------------------------------------------------------------------ transactions
    def _write(self, work: Callable[[psycopg.Connection[Any]], T]) -> T:
        with self._lock:
            try:
                with self._conn.transaction():
                    return work(self._conn)
            except psycopg.Error as exc:
                if exc.sqlstate == _DISK_FULL:
                    raise StoreFullError(
                        f"the disk of the PostgreSQL server holding {self.describe()} is full"
                    ) from exc
                raise StoreError(f"{self.describe()}: {exc}") from exc

    def _now(self, conn: psycopg.Connection[Any]) -> float:
        row = conn.execute("SELECT extract(epoch FROM clock_timestamp())").fetchone()
        return float(row[0]) if row is not None else 0.0

    def _before_schema_change(self, conn: psycopg.Connection[Any]) -> None:
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))

    def _read(self, work: Callable[[psycopg.Connection[Any]], T]) -> T:
        return self._write(work)  # a transaction reads one snapshot in PostgreSQL too
