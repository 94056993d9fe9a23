"""`SQLiteStore`: the embedded default, one file in WAL mode (stdlib `sqlite3`).

Durability: each batch is one transaction. With `durability="process"` (the default,
`synchronous=NORMAL`) a committed batch is in the WAL file when `append` returns, so it
survives the process being killed (SIGKILL included) at any moment; a power loss or an
operating-system crash may lose the last batches committed but never leaves the file
inconsistent. `durability="power"` (`synchronous=FULL`) fsyncs every commit, surviving power
loss too, at the cost of one fsync per batch.

Opening checks the file before changing anything, through a read-only connection: a file
that is not a SQLite database, a SQLite database that is not a retinue store, a damaged one
(a table or column the store needs is missing, or SQLite's `quick_check` finds a fault, within
`check_seconds`) and a store written by a newer schema are each one `StoreError`
(`SchemaVersionError` for the last), and the file is left byte for byte as it was.

A write the disk has no room for is a `StoreFullError` naming the disk ("the disk holding
... is full"); nothing of it was kept, and the same write may be tried again once there is
room.
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Literal, TypeVar

from retinue.store.protocol import (
    APPLICATION,
    SCHEMA_VERSION,
    StoreError,
    StoreFullError,
    check_schema_version,
)
from retinue.store.retention import Retention
from retinue.store.sql import LEASES, META, SCHEMA, Statements, layout_problems
from retinue.store.sql_store import SQLStore

T = TypeVar("T")
_HEADER = b"SQLite format 3\x00"
#: SQLite virtual-machine steps between two looks at the clock during `quick_check`.
_CHECK_STEPS = 10_000

logger = logging.getLogger(__name__)

Durability = Literal["process", "power"]


class SQLiteStore(SQLStore):
    """A record in one SQLite file; `create=False` refuses a path with no store yet.

    `check_seconds` bounds the `quick_check` at opening (a file too large to check in that
    time is opened with a warning; 0: no check).
    """

    def __init__(
        self,
        path: str | Path,
        *,
        retention: Retention | None = None,
        durability: Durability = "process",
        create: bool = True,
        check_seconds: float = 5.0,
        lease_seconds: float | None = None,
    ) -> None:
        super().__init__(retention=retention, lease_seconds=lease_seconds)
        if durability not in ("process", "power"):
            raise ValueError(f"durability must be 'process' or 'power', not {durability!r}")
        self.path = Path(path)
        self.durability: Durability = durability
        self.check_seconds = check_seconds
        self._lock = threading.RLock()
        self._sql = Statements("?")
        self._types = {"real": "REAL", "int": "INTEGER"}
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
        tables: set[str] = set()
        if exists and self.path.stat().st_size > 0:
            with self.path.open("rb") as handle:
                header = handle.read(len(_HEADER))
            if header != _HEADER:
                raise StoreError(f"{where} is not a retinue store (not a SQLite database)")
            tables = self._inspect()
        if not tables and not create:
            raise StoreError(f"{where}: no such store (an empty SQLite database)")
        self._has_leases = LEASES in tables
        try:
            conn = sqlite3.connect(
                self.path, isolation_level=None, check_same_thread=False, timeout=30.0
            )
        except sqlite3.Error as exc:
            raise StoreError(f"{where} could not be opened: {exc}") from exc
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            sync = "FULL" if self.durability == "power" else "NORMAL"
            conn.execute(f"PRAGMA synchronous={sync}")
            if not tables:
                self._create(conn)
        except sqlite3.Error as exc:
            conn.close()
            raise self._failure(exc, f"{where} could not be opened") from exc
        except BaseException:
            conn.close()
            raise
        return conn

    def _inspect(self) -> set[str]:
        """The checks of an existing file, read-only; its tables (none: a new store).

        With no WAL beside it the file is read as immutable (nothing is created next to it);
        a WAL is read too, in read-only mode, when there is one (a team records there now, or
        a crash left it).
        """
        wal = self.path.with_name(self.path.name + "-wal")
        mode = "mode=ro" if wal.exists() else "immutable=1"
        where = self.describe()
        try:
            conn = sqlite3.connect(f"{self.path.resolve().as_uri()}?{mode}", uri=True)
        except sqlite3.Error as exc:
            raise StoreError(f"{where} could not be opened: {exc}") from exc
        try:
            return self._check(conn, where)
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{where} is not a usable retinue store: {exc}") from exc
        finally:
            conn.close()

    def _check(self, conn: sqlite3.Connection, where: str) -> set[str]:
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
        if not tables:
            return tables
        if META not in tables:
            shown = ", ".join(sorted(tables)[:5])
            raise StoreError(
                f"{where} is a SQLite database but not a retinue store (it holds {shown})"
            )
        meta = dict(conn.execute(f"SELECT key, value FROM {META}").fetchall())
        if meta.get("application") != APPLICATION:
            raise StoreError(f"{where} is not a retinue store (its metadata names no retinue)")
        check_schema_version(where, meta)
        found = {
            table: {row[1] for row in conn.execute(f'PRAGMA table_info("{table}")')}
            for table in tables
            if table.startswith("retinue_")
        }
        problems = layout_problems(found) or self._quick_check(conn)
        if problems:
            raise StoreError(f"{where} is not a usable retinue store: {'; '.join(problems)}")
        return tables

    def _quick_check(self, conn: sqlite3.Connection) -> list[str]:
        """What `PRAGMA quick_check` finds (the first few), within `check_seconds`."""
        if self.check_seconds <= 0:
            return []
        deadline = time.monotonic() + self.check_seconds
        conn.set_progress_handler(lambda: time.monotonic() > deadline, _CHECK_STEPS)
        try:
            rows = conn.execute("PRAGMA quick_check(3)").fetchall()
        except sqlite3.OperationalError:
            if time.monotonic() <= deadline:
                raise
            logger.warning(
                "%s was opened without a full check: quick_check takes longer than %gs",
                self.describe(),
                self.check_seconds,
            )
            return []
        finally:
            conn.set_progress_handler(None, 0)
        found = [
            line
            for (text,) in rows
            for line in str(text).splitlines()
            if line != "ok" and not line.startswith("***")  # "*** in database main ***"
        ]
        return [f"quick_check found {'; '.join(found[:3])}"] if found else []

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
                    if conn.in_transaction:  # a COMMIT that failed may have rolled back
                        with contextlib.suppress(sqlite3.Error):  # the first error is the news
                            conn.execute("ROLLBACK")
                    raise
            except sqlite3.Error as exc:
                raise self._failure(exc, self.describe()) from exc
            return result

    def _read(self, work: Callable[[sqlite3.Connection], T]) -> T:
        with self._lock:
            try:
                return work(self._conn)
            except sqlite3.Error as exc:
                raise self._failure(exc, self.describe()) from exc

    def _failure(self, exc: sqlite3.Error, context: str) -> StoreError:
        """The driver's error as the store's, a full disk named as such."""
        if getattr(exc, "sqlite_errorcode", 0) & 0xFF == sqlite3.SQLITE_FULL:
            return StoreFullError(f"the disk holding {self.describe()} is full")
        return StoreError(f"{context}: {exc}")
