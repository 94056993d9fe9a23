"""The stores the protocol tests run against: in-memory, SQLite, PostgreSQL.

PostgreSQL is a real server this session starts (see `pg_server`), or the one
`RETINUE_POSTGRES_URL` names. Where none can be started the PostgreSQL cases skip with the
reason, unless `RETINUE_POSTGRES_REQUIRED=1` (the `postgres` tox environment): then they fail.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from retinue.store import MemoryStore, SQLiteStore, Store

# The crash-resume helpers assert as the tests that used to hold them did, with pytest's detail.
pytest.register_assert_rewrite("resume_helpers")

STORES = ["memory", "sqlite", "postgres"]


def _required() -> bool:
    return os.environ.get("RETINUE_POSTGRES_REQUIRED", "") not in ("", "0")


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """The URL of a PostgreSQL server for this test session (skips, or fails if required)."""
    given = os.environ.get("RETINUE_POSTGRES_URL")
    if given:
        yield given
        return
    try:
        import psycopg  # noqa: F401
    except ImportError:
        reason = "psycopg is not installed (pip install 'retinue[postgres]')"
        if _required():
            pytest.fail(f"PostgreSQL is required here but {reason}")
        pytest.skip(reason)
    from pg_server import ServerUnavailableError, start_server

    try:
        server = start_server()
    except ServerUnavailableError as exc:
        if _required():
            pytest.fail(f"PostgreSQL is required here but could not be started: {exc}")
        pytest.skip(f"no PostgreSQL server: {exc} (the postgres tox env starts one)")
    try:
        yield server.url
    finally:
        server.stop()


def _drop_tables(url: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        for table in (
            "retinue_meta",
            "retinue_teams",
            "retinue_records",
            "retinue_snapshots",
            "retinue_members",
        ):
            conn.execute(f"DROP TABLE IF EXISTS {table}")


@pytest.fixture
def fresh_postgres(request: pytest.FixtureRequest) -> Iterator[str]:
    """A PostgreSQL URL whose database holds no retinue tables (dropped after too)."""
    url: str = request.getfixturevalue("postgres_url")
    _drop_tables(url)
    yield url
    _drop_tables(url)


@pytest.fixture(params=STORES)
def store_factory(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[[], Store]]:
    """Opens a store of the parametrized kind; every store it opened is closed afterwards."""
    opened: list[Store] = []
    kind = request.param
    memory = MemoryStore()
    url = request.getfixturevalue("fresh_postgres") if kind == "postgres" else ""

    def factory() -> Store:
        store: Store
        if kind == "memory":
            store = memory
        elif kind == "sqlite":
            store = SQLiteStore(tmp_path / "record.sqlite")
        else:
            from retinue.store.postgres import PostgresStore

            store = PostgresStore(url)
        opened.append(store)
        return store

    yield factory
    for store in opened:
        store.close()


@pytest.fixture
def store(store_factory: Callable[[], Store]) -> Store:
    return store_factory()
