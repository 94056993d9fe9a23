"""`open_store`: a store from what a user types (a path, `:memory:`, a `postgresql://` URL);
and where the `retinue` command records when it is told nowhere.

The command's default is one SQLite file per user, in the platform's user data directory
(`platformdirs`: `~/.local/share/retinue/retinue.sqlite` on Linux, under `$XDG_DATA_HOME`
when it is set), as `llm` keeps its logs; `$RETINUE_STORE` names another.
"""

from __future__ import annotations

import os
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


#: The environment variable naming the store the command uses when `--store` is not given.
STORE_ENV = "RETINUE_STORE"


def default_store_path() -> Path:
    """The per-user store: `retinue.sqlite` in the platform's user data directory."""
    from platformdirs import user_data_path

    return user_data_path("retinue", appauthor=False) / "retinue.sqlite"


def store_location(where: str | None = None) -> str:
    """Where the command's store is: `where`, else `$RETINUE_STORE`, else the per-user one."""
    return where or os.environ.get(STORE_ENV) or str(default_store_path())
