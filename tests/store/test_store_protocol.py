"""The store protocol, the same tests against every store (memory, SQLite, PostgreSQL)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from retinue.store import (
    KEEP_ALL,
    PROTECTED_KINDS,
    SCHEMA_VERSION,
    Record,
    Retention,
    Store,
    StoreError,
)


def rec(kind: str, n: int = 0, *, actor: str | None = "a1", **fields: object) -> Record:
    values: dict[str, object] = {
        "kind": kind,
        "type": f"test:{kind}",
        "data": f'{{"n": {n}}}',
        "message_id": f"m{n}",
        "actor_id": actor,
        "sender": "@A",
        "recipient": "@B",
        "parent_id": f"m{n - 1}" if n else None,
        "chain_id": "c1",
        "timestamp": 1000.0 + n,
    }
    values.update(fields)
    return Record(**values)  # type: ignore[arg-type]


def test_a_store_says_its_schema_version(store: Store) -> None:
    assert store.schema_version == SCHEMA_VERSION


def test_teams_are_created_listed_and_deleted(store: Store) -> None:
    assert store.list_teams() == []
    first = store.create_team("t1", {"name": "first"})
    store.create_team("t2")
    assert first.team_id == "t1" and first.metadata == {"name": "first"}
    assert [t.team_id for t in store.list_teams()] == ["t1", "t2"]
    info = store.team("t1")
    assert info is not None and info.metadata == {"name": "first"}
    assert info.last_position == 0 and info.last_activity is None and info.members == ()
    with pytest.raises(StoreError, match="already has a team t1"):
        store.create_team("t1")
    store.append("t1", [rec("SentMessage", 1)])
    assert store.delete_team("t1") is True
    assert store.delete_team("t1") is False
    assert store.team("t1") is None
    assert [t.team_id for t in store.list_teams()] == ["t2"]
    store.create_team("t1")  # a deleted team's id is free again, with an empty stream
    assert list(store.read("t1")) == []


def test_batches_are_numbered_in_order_and_read_back_exactly(store: Store) -> None:
    store.create_team("t")
    first = [rec("SentMessage", 1), rec("ModelMessageEvent", 2)]
    assert store.append("t", first) == 2
    assert store.append("t", [rec("SentMessage", 3, cost_usd=0.5, requests=1)]) == 3
    assert store.append("t", []) == 3
    got = list(store.read("t"))
    assert [r.position for r in got] == [1, 2, 3]
    assert got[0] == first[0].placed("t", 1)  # every column comes back as written
    assert got[2].cost_usd == 0.5 and got[2].team_id == "t"
    assert [r.position for r in store.read("t", after=1)] == [2, 3]
    assert [r.position for r in store.read("t", after=3)] == []
    assert [r.position for r in store.read("t", kinds=["SentMessage"])] == [1, 3]
    assert [r.position for r in store.read("t", limit=2)] == [1, 2]


def test_a_long_stream_reads_in_order_across_pages(store: Store) -> None:
    store.create_team("t")
    for start in range(0, 1200, 300):
        store.append("t", [rec("SentMessage", n) for n in range(start, start + 300)])
    got = list(store.read("t", after=100))
    assert [r.position for r in got] == list(range(101, 1201))
    assert [r.message_id for r in got[:2]] == ["m100", "m101"]
    assert len(list(store.read("t", after=100, limit=700))) == 700


def test_teams_keep_streams_of_their_own(store: Store) -> None:
    store.create_team("a")
    store.create_team("b")
    store.append("a", [rec("SentMessage", 1), rec("SentMessage", 2)])
    store.append("b", [rec("SentMessage", 9)])
    assert [r.message_id for r in store.read("b")] == ["m9"]
    assert [r.position for r in store.read("b")] == [1]
    store.delete_team("a")
    assert [r.message_id for r in store.read("b")] == ["m9"]


def test_appending_to_a_missing_team_is_an_error_and_writes_nothing(store: Store) -> None:
    with pytest.raises(StoreError, match="no team nope"):
        store.append("nope", [rec("SentMessage", 1)])
    with pytest.raises(StoreError, match="no team nope"):
        list(store.read("nope"))
    assert store.list_teams() == []


def test_snapshots_hold_each_actors_latest_checkpoint(store: Store) -> None:
    store.create_team("t")
    store.append(
        "t",
        [
            rec("StateChangedMessage", 1, actor="a1"),
            rec("StateChangedMessage", 2, actor="a2"),
            rec("SentMessage", 3, actor="a1"),
        ],
    )
    store.append("t", [rec("StateChangedMessage", 4, actor="a1")])
    snaps = store.snapshots("t")
    assert {actor: r.position for actor, r in snaps.items()} == {"a1": 4, "a2": 2}
    assert snaps["a1"].data == '{"n": 4}'


def test_members_follow_starts_and_stops(store: Store) -> None:
    store.create_team("t")
    store.append(
        "t",
        [
            rec("StartMessage", 1, actor="t", sender="@Orchestrator"),  # the team itself
            rec("StartMessage", 2, actor="h", sender="@Human"),
            rec("StartMessage", 3, actor="m", sender="@Manager"),
            rec("StartMessage", 4, actor="d", sender="@Dev"),
        ],
    )
    store.append("t", [rec("StopMessage", 5, actor="m", sender="@Manager")])
    members = store.members("t")
    assert [(m.name, m.started, m.stopped) for m in members] == [
        ("@Human", 2, None),
        ("@Manager", 3, 5),
        ("@Dev", 4, None),
    ]
    info = store.team("t")
    assert info is not None and info.members == ("@Human", "@Dev")
    # a resumed member starts again under its own id: alive again, moved to the end
    store.append("t", [rec("StartMessage", 6, actor="m", sender="@Manager")])
    assert [(m.name, m.alive) for m in store.members("t")][-1] == ("@Manager", True)


def test_an_attached_actor_is_no_member_and_a_shutdown_is_no_departure(store: Store) -> None:
    store.create_team("t")
    store.append(
        "t",
        [
            rec("StartMessage", 1, actor="h", sender="@Human"),
            rec("StartMessage", 2, actor="b", sender="@PlanningBoard", data='{"member": false}'),
            rec("StartMessage", 3, actor="m", sender="@Manager", data='{"member": true}'),
            rec("StartMessage", 4, actor="d", sender="@Dev"),
            rec("StopMessage", 5, actor="d", sender="@Dev", data='{"shutdown": false}'),
            rec("StopMessage", 6, actor="m", sender="@Manager", data='{"shutdown": true}'),
            rec("StopMessage", 7, actor="h", sender="@Human", data='{"shutdown": true}'),
        ],
    )
    assert [(m.name, m.stopped) for m in store.members("t")] == [
        ("@Human", None),
        ("@Manager", None),
        ("@Dev", 5),
    ]
    info = store.team("t")
    assert info is not None and info.members == ("@Human", "@Manager")


def test_the_team_summary_adds_up_usage_and_activity(store: Store) -> None:
    store.create_team("t")
    store.append(
        "t",
        [
            rec("LlmUsageEvent", 1, requests=1, input_tokens=10, output_tokens=3, cost_usd=0.25),
            rec("LlmUsageEvent", 2, requests=2, input_tokens=5, output_tokens=1, cost_usd=0.5),
        ],
    )
    store.append("t", [rec("SentMessage", 3, timestamp=5000.0)])
    info = store.team("t")
    assert info is not None
    assert (info.requests, info.input_tokens, info.output_tokens) == (3, 15, 4)
    assert info.cost_usd == pytest.approx(0.75)
    assert info.last_position == 3 and info.last_activity == 5000.0


def test_pruning_lets_telemetry_and_old_checkpoints_go_never_what_resume_reads(
    store: Store,
) -> None:
    store.create_team("t")
    kinds = sorted(PROTECTED_KINDS - {"StateChangedMessage"})
    needed = [rec(kind, n) for n, kind in enumerate(kinds)]
    store.append("t", needed)
    base = len(needed)
    store.append("t", [rec("ToolCallEvent", base + n) for n in range(5)])
    store.append("t", [rec("StateChangedMessage", base + 5 + n, actor="a1") for n in range(3)])
    store.append("t", [rec("StateChangedMessage", base + 8, actor="a2")])
    assert store.prune("t", KEEP_ALL) == 0
    gone = store.prune("t", Retention(keep_telemetry=2))
    assert gone == 3 + 2  # three tool calls, two superseded checkpoints of a1
    left = list(store.read("t"))
    assert [r.kind for r in left if r.kind == "ToolCallEvent"] == ["ToolCallEvent"] * 2
    assert [r.message_id for r in left if r.kind == "ToolCallEvent"] == [
        f"m{base + 3}",
        f"m{base + 4}",
    ]
    assert [r.message_id for r in left[: len(needed)]] == [r.message_id for r in needed]
    snaps = store.snapshots("t")
    checkpoints = [r for r in left if r.kind == "StateChangedMessage"]
    assert {r.position for r in checkpoints} == {r.position for r in snaps.values()}
    assert store.prune("t", Retention(keep_telemetry=2)) == 0
    store.append("t", [rec("SentMessage", 99)])  # positions go on after the holes
    assert list(store.read("t"))[-1].position == base + 10


def test_a_retention_that_would_prune_what_resume_needs_is_refused() -> None:
    with pytest.raises(ValueError, match="cannot prune SentMessage"):
        Retention(telemetry=frozenset({"SentMessage", "ToolCallEvent"}))
    with pytest.raises(ValueError, match="keep_telemetry"):
        Retention(keep_telemetry=-1)


def test_what_was_appended_is_there_when_opened_again(
    store_factory: Callable[[], Store],
) -> None:
    store = store_factory()
    store.create_team("t", {"name": "kept"})
    store.append("t", [rec("StartMessage", 1, actor="h", sender="@Human")])
    store.append("t", [rec("StateChangedMessage", 2, actor="h")])
    store.close()
    again = store_factory()
    info = again.team("t")
    assert info is not None and info.metadata == {"name": "kept"} and info.members == ("@Human",)
    assert [r.position for r in again.read("t")] == [1, 2]
    assert list(again.snapshots("t")) == ["h"]
