"""One live owner per team: the lease every store keeps, and who takes it."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest
from retinue import ActorSystem, Orchestrator
from retinue.store import LeaseHeldError, Record, SQLiteStore, Store, StoreError, open_store


def record(n: int) -> Record:
    return Record(kind="SentMessage", type="x", data="{}", message_id=str(n))


def test_a_lease_is_held_once_per_take_and_let_go_by_the_last_release(store: Store) -> None:
    store.create_team("t")
    assert store.lease("t") is None
    store.take_lease("t")
    store.take_lease("t")  # the same store again: held once more
    held = store.lease("t")
    assert held is not None
    assert (held.host, held.pid) == (socket.gethostname(), os.getpid())
    assert held.since <= held.expires
    store.release_lease("t")
    assert store.lease("t") == held
    store.release_lease("t")
    assert store.lease("t") is None
    assert store.append("t", [record(1)]) == 1


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_a_second_owner_is_refused_with_one_line_naming_the_holder(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    where = str(tmp_path / "team.sqlite")
    if kind == "postgres":
        where = request.getfixturevalue("fresh_postgres")
    first, second = open_store(where), open_store(where)
    try:
        first.create_team("t")
        first.take_lease("t")
        with pytest.raises(LeaseHeldError) as refused:
            second.take_lease("t")
        line = str(refused.value)
        assert line.startswith(
            f"team t is already run by host {socket.gethostname()}, pid {os.getpid()}, since "
        )
        assert "\n" not in line
        assert refused.value.holder == first.lease("t")
        with pytest.raises(LeaseHeldError):  # nor may it write the team's record
            second.append("t", [record(1)])
        assert first.append("t", [record(1)]) == 1

        first.release_lease("t")
        second.take_lease("t")
        with pytest.raises(LeaseHeldError):
            first.append("t", [record(2)])
    finally:
        first.close()
        second.close()
    with open_store(where) as again:  # closing a store let its leases go
        assert again.lease("t") is None


def test_a_running_team_holds_its_lease_until_it_stops(tmp_path: Path) -> None:
    path = tmp_path / "team.sqlite"
    system = ActorSystem(store=str(path))
    other = SQLiteStore(path)
    try:
        team_id = system.createActor(Orchestrator).team_id
        assert team_id is not None
        with pytest.raises(LeaseHeldError, match=f"pid {os.getpid()}"):
            other.take_lease(team_id)
        assert system.shutdown(10)
        other.take_lease(team_id)  # a stopped team is free
    finally:
        other.close()


def test_the_lease_length_is_a_setting(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("RETINUE_LEASE_SECONDS", "2.5")
    with SQLiteStore(tmp_path / "a.sqlite") as store:
        assert store.leases.seconds == 2.5
    with SQLiteStore(tmp_path / "b.sqlite", lease_seconds=7) as store:
        assert store.leases.seconds == 7
    monkeypatch.setenv("RETINUE_LEASE_SECONDS", "soon")
    with pytest.raises(StoreError, match="RETINUE_LEASE_SECONDS must be seconds, not 'soon'"):
        SQLiteStore(tmp_path / "c.sqlite")
