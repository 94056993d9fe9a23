"""A store file that is not ours, is damaged or is newer: one clear error, the file untouched."""

from __future__ import annotations

import logging
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from retinue import ActorSystem
from retinue.store import (
    SCHEMA_VERSION,
    Record,
    SchemaVersionError,
    SQLiteStore,
    StoreError,
    open_store,
)


def _fingerprint(path: Path) -> tuple[bytes, int]:
    return path.read_bytes(), os.stat(path).st_mtime_ns


def _foreign(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)")
    conn.execute("INSERT INTO invoices (total) VALUES (12.5)")
    conn.commit()
    conn.close()


def _text(path: Path) -> None:
    path.write_text("name,total\nacme,12.5\n", encoding="utf-8")


def _damaged(path: Path) -> None:
    store = SQLiteStore(path)
    store.create_team("t")
    store.close()
    data = bytearray(path.read_bytes())
    data[100:4096] = b"\xff" * (4096 - 100)  # the header survives, the schema page does not
    path.write_bytes(bytes(data))


def _with_records(path: Path) -> None:
    """A store whose records take a few dozen pages."""
    store = SQLiteStore(path)
    store.create_team("t")
    records = [Record("SentMessage", "x", "y" * 300, message_id=str(n)) for n in range(200)]
    store.append("t", records)
    store.close()


def _flipped_page(path: Path) -> None:
    _with_records(path)
    data = bytearray(path.read_bytes())
    page = slice(9 * 4096, 10 * 4096)  # a page of retinue_records, every bit inverted
    data[page] = bytes(byte ^ 0xFF for byte in data[page])
    path.write_bytes(bytes(data))


def _altered(sql: str) -> Callable[[Path], None]:
    def alter(path: Path) -> None:
        _with_records(path)
        conn = sqlite3.connect(path)
        conn.execute(sql)
        conn.commit()
        conn.close()

    return alter


def _newer(path: Path) -> None:
    store = SQLiteStore(path)
    store.create_team("t")
    store.close()
    conn = sqlite3.connect(path)
    conn.execute(
        "UPDATE retinue_meta SET value = ? WHERE key = 'schema_version'",
        (str(SCHEMA_VERSION + 1),),
    )
    conn.commit()
    conn.close()


CASES: dict[str, tuple[Callable[[Path], None], str]] = {
    "foreign sqlite": (
        _foreign,
        r"is a SQLite database but not a retinue store \(it holds invoices\)",
    ),
    "text file": (_text, r"is not a retinue store \(not a SQLite database\)"),
    "damaged": (_damaged, r"is not a usable retinue store: .*malformed"),
    "flipped page": (
        _flipped_page,
        r"is not a usable retinue store: (quick_check found Page|database disk image is malformed)",
    ),
    "dropped table": (
        _altered("DROP TABLE retinue_records"),
        r"is not a usable retinue store: its table retinue_records is missing$",
    ),
    "renamed column": (
        _altered("ALTER TABLE retinue_records RENAME COLUMN kind TO sort"),
        r"is not a usable retinue store: its table retinue_records has no column kind$",
    ),
    "newer schema": (_newer, rf"written by a newer retinue \(record schema {SCHEMA_VERSION + 1}"),
}


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("how", ["SQLiteStore", "open_store", "ActorSystem"])
def test_a_file_that_is_no_usable_store_is_one_error_and_left_as_it_was(
    tmp_path: Path, case: str, how: str
) -> None:
    make, message = CASES[case]
    path = tmp_path / "given.sqlite"
    make(path)
    before = _fingerprint(path)
    siblings = sorted(p.name for p in tmp_path.iterdir())
    opener: Callable[[], object] = {
        "SQLiteStore": lambda: SQLiteStore(path),
        "open_store": lambda: open_store(str(path)),
        "ActorSystem": lambda: ActorSystem(store=str(path)),
    }[how]
    with pytest.raises(StoreError, match=message) as info:
        opener()
    assert str(path) in str(info.value) and "\n" not in str(info.value)
    if case == "newer schema":
        assert isinstance(info.value, SchemaVersionError)
        assert "upgrade retinue" in str(info.value)
    assert _fingerprint(path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == siblings  # no journal left behind


def test_a_reader_never_creates_a_store(tmp_path: Path) -> None:
    missing = tmp_path / "nothing.sqlite"
    with pytest.raises(StoreError, match="no such store"):
        open_store(missing, create=False)
    assert not missing.exists()
    with pytest.raises(StoreError, match="is a directory"):
        SQLiteStore(tmp_path)


def test_a_newer_postgres_store_is_refused_and_left_as_it_was(fresh_postgres: str) -> None:
    import psycopg
    from retinue.store.postgres import PostgresStore

    PostgresStore(fresh_postgres).close()
    with psycopg.connect(fresh_postgres, autocommit=True) as conn:
        conn.execute(
            "UPDATE retinue_meta SET value = %s WHERE key = 'schema_version'",
            (str(SCHEMA_VERSION + 1),),
        )
    with pytest.raises(SchemaVersionError, match="newer retinue"):
        open_store(fresh_postgres)
    with psycopg.connect(fresh_postgres, autocommit=True) as conn:
        row = conn.execute("SELECT value FROM retinue_meta WHERE key = 'schema_version'")
        assert row.fetchone() == (str(SCHEMA_VERSION + 1),)


def test_a_check_longer_than_its_bound_is_cut_and_the_file_opened_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "big.sqlite"
    store = SQLiteStore(path)
    store.create_team("t")
    store.append(
        "t", [Record("SentMessage", "x", "y" * 300, message_id=str(n)) for n in range(2000)]
    )
    store.close()  # 860 KiB: quick_check takes some 60,000 steps, the clock is read every 10,000
    before = _fingerprint(path)

    with caplog.at_level(logging.WARNING, logger="retinue.store.sqlite"):
        store = SQLiteStore(path, create=False, check_seconds=1e-6)
    try:
        assert len(list(store.read("t"))) == 2000  # opened, and usable
    finally:
        store.close()
    (warning,) = [r.getMessage() for r in caplog.records]
    assert (
        warning == f"{path} was opened without a full check: quick_check takes longer than 1e-06s"
    )
    assert _fingerprint(path)[0] == before[0]

    checked = SQLiteStore(path, create=False)  # the default bound: the whole check, and fine
    checked.close()
    assert len(caplog.records) == 1


@pytest.mark.parametrize(
    ("sql", "message"),
    [
        ("DROP TABLE retinue_records", "its table retinue_records is missing"),
        (
            "ALTER TABLE retinue_records RENAME COLUMN kind TO sort",
            "its table retinue_records has no column kind",
        ),
    ],
    ids=["dropped table", "renamed column"],
)
def test_a_damaged_postgres_store_is_refused_at_opening_and_left_as_it_was(
    fresh_postgres: str, sql: str, message: str
) -> None:
    import psycopg

    store = open_store(fresh_postgres)
    store.create_team("t")
    store.append("t", [Record("SentMessage", "x", "y", message_id=str(n)) for n in range(3)])
    store.close()
    layout = (
        "SELECT table_name, column_name FROM information_schema.columns"
        " WHERE table_schema = current_schema() AND table_name LIKE 'retinue%' ORDER BY 1, 2"
    )
    with psycopg.connect(fresh_postgres, autocommit=True) as conn:
        conn.execute(sql)
        before = (
            conn.execute(layout).fetchall(),
            conn.execute("SELECT * FROM retinue_teams").fetchall(),
        )

    with pytest.raises(StoreError, match=f"is not a usable retinue store: {message}$") as info:
        open_store(fresh_postgres)
    assert "\n" not in str(info.value)

    with psycopg.connect(fresh_postgres, autocommit=True) as conn:
        after = (
            conn.execute(layout).fetchall(),
            conn.execute("SELECT * FROM retinue_teams").fetchall(),
        )
    assert after == before
