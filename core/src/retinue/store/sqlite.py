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

import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Literal, TypeVar

from retinue.store.protocol import APPLICATION, SCHEMA_VERSION, StoreError, newer_schema_error
from retinue.store.retention import Retention
from retinue.store.sql import META, SCHEMA, Statements
from retinue.store.sql_store import SQLStore

T = TypeVar("T")
_HEADER = b"SQLite format 3\x00"

Durability = Literal["process", "power"]


class SQLiteStore(SQLStore):
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
        self._sql = Statements("?")
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

    # ------------------------------------------------------------------ transactions
    def _write(self, work: Callable[[sqlite3.Connection], T]) -> T:
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

    def _read(self, work: Callable[[sqlite3.Connection], T]) -> T:
        with self._lock:
            try:
                return work(self._conn)
            except sqlite3.Error as exc:
                raise StoreError(f"{self.describe()}: {exc}") from exc
