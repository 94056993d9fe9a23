"""`open_store`: a store from what a user types (a path, `:memory:`, a `postgresql://` URL)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from retinue.store.protocol import Store
from retinue.store.retention import Retention

_POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def open_store(
    where: str | Path, *, retention: Retention | None = None, create: bool = True, **options: Any
) -> Store:
    """The store at `where`: `:memory:` (a `MemoryStore`), a `postgresql://` URL (a
    `PostgresStore`, needs `retinue[postgres]`), else a SQLite file path.

    `create=False` refuses a place with no store yet (what readers such as `retinue log` want);
    `options` go to the store's class (`durability=` for SQLite).
    """
    text = str(where)
    if text == ":memory:":
        from retinue.store.memory import MemoryStore

        return MemoryStore(retention=retention)
    if text.startswith(_POSTGRES_SCHEMES):
        from retinue.store.postgres import PostgresStore

        return PostgresStore(text, retention=retention, create=create, **options)
    from retinue.store.sqlite import SQLiteStore

    return SQLiteStore(Path(where), retention=retention, create=create, **options)
