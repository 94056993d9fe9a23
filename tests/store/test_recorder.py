"""The recorder: a real team on scripted models, recorded by every store."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from retinue import (
    ActorSystem,
    AgentMessage,
    EventMessage,
    EventSubscriber,
    Message,
    Orchestrator,
    SentMessage,
    StartMessage,
    TeamConfig,
)
from retinue.store import MemoryStore, Record, Retention, SQLiteStore, Store, StoreError
from retinue.team import recorder
from retinue.team.record_codec import decode
from retinue.testing import PingTool, TeamHarness, scripted_card

CONVERSATION = (
    "call ping\n"
    "send @Developer request: send @Manager response: plan ready\n"
    "send @Human response: asked the Developer"
)


@pytest.fixture
def team(store: Store) -> Iterator[TeamHarness]:
    harness = TeamHarness(store=store)
    try:
        yield harness
    finally:
        harness.shutdown()


def converse(team: TeamHarness) -> None:
    """The human asks @Manager, who calls a tool and asks @Developer, who answers."""
    manager = team.add(scripted_card("Manager", routes_to=["Developer"], tools=[PingTool()]))
    team.add(scripted_card("Developer"))
    team.say(manager, CONVERSATION)
    team.wait_idle()


def decoded(store: Store, team_id: str, kinds: Sequence[str] | None = None) -> list[Message]:
    return [decode(r.data) for r in store.read(team_id, kinds=kinds)]


def test_every_message_is_recorded_in_order_and_reads_back_equal(
    store: Store, team: TeamHarness
) -> None:
    converse(team)
    records = list(store.read(team.team_id))
    seen = team.recorder.messages
    # what subscribers saw is the record, in the same order (the orchestrator's own start
    # comes first, before anyone could subscribe)
    assert [r.message_id for r in records[1:]] == [m.id for m in seen]
    assert [decode(r.data) for r in records[1:]] == seen
    kinds = {r.kind for r in records}
    assert {
        "StartMessage",
        "ProfilesRegisteredMessage",
        "SentMessage",
        "StateChangedMessage",
        "ModelMessageEvent",
        "LlmUsageEvent",
        "RunStartedEvent",
        "ToolCallEvent",
    } <= kinds
    sent = [m for m in decoded(store, team.team_id, ["SentMessage"]) if isinstance(m, SentMessage)]
    assert [(m.sender.name, m.recipient.name) for m in sent if m.sender and m.recipient] == [
        ("@Human", "@Manager"),
        ("@Manager", "@Developer"),
        ("@Manager", "@Human"),
        ("@Developer", "@Manager"),
    ]
    hire, answer = sent[1], sent[3]
    assert isinstance(hire.message, AgentMessage) and isinstance(answer.message, AgentMessage)
    assert answer.message.content == "plan ready" and answer.chain_id == sent[0].chain_id
    assert answer.parent_id == hire.message.id  # the Developer answered the hire's message
    first = records[0]
    assert first.kind == "StartMessage" and first.actor_id == team.team_id
    info = store.team(team.team_id)
    assert info is not None and info.members == ("@Human", "@Manager", "@Developer")
    usage = [r for r in records if r.kind == "LlmUsageEvent"]
    assert info.requests == sum(r.requests for r in usage) > 0
    assert info.input_tokens == sum(r.input_tokens for r in usage) > 0


def test_checkpoints_cards_and_the_roster_are_in_the_record(
    store: Store, team: TeamHarness
) -> None:
    converse(team)
    snapshots = store.snapshots(team.team_id)
    roster = {m.name: m for m in store.members(team.team_id)}
    assert set(roster) == {"@Human", "@Manager", "@Developer"}
    manager = roster["@Manager"]
    assert manager.actor_id in snapshots
    state = decode(snapshots[manager.actor_id].data)
    assert type(state).__name__ == "StateChangedMessage"
    starts = [m for m in decoded(store, team.team_id, ["StartMessage"])]
    developer = next(m for m in starts if m.sender and m.sender.name == "@Developer")
    assert isinstance(developer, StartMessage) and developer.parent is not None
    assert developer.parent == team.orchestrator  # who started it
    cards = decoded(store, team.team_id, ["ProfilesRegisteredMessage"])
    roles = [card.config.role for m in cards for card in getattr(m, "cards", [])]
    assert roles == ["Manager", "Developer"]


class _StoreWatcher(EventSubscriber):
    """Checks, as each message is announced, that the store already holds it."""

    def __init__(self, store: Store, team_id: str) -> None:
        self.store, self.team_id = store, team_id
        self.missing: list[str] = []
        self.checked = 0

    def on_message(self, message: Message) -> None:
        ids = {r.message_id for r in self.store.read(self.team_id)}
        self.checked += 1
        if message.id not in ids:
            self.missing.append(type(message).__name__)


def test_subscribers_hear_of_a_message_only_once_it_is_committed(
    store: Store, team: TeamHarness
) -> None:
    watcher = _StoreWatcher(store, team.team_id)
    team.orchestrator_proxy.subscribe(watcher)
    converse(team)
    assert watcher.checked > 10 and watcher.missing == []


def test_retention_prunes_telemetry_as_the_team_runs_and_keeps_what_resume_reads(
    tmp_path: Path,
) -> None:
    store = SQLiteStore(tmp_path / "r.sqlite", retention=Retention(keep_telemetry=0, every=1))
    team = TeamHarness(store=store)
    try:
        converse(team)
        team.say(team.add(scripted_card("Tester")), "send @Human response: hello")
        team.wait_idle()
        records = list(store.read(team.team_id))
        seen = team.recorder.messages
    finally:
        team.shutdown()
        store.close()
    kinds = [r.kind for r in records]
    assert "ToolCallEvent" not in kinds and "CommandsAnnouncedEvent" not in kinds
    checkpoints = [r for r in records if r.kind == "StateChangedMessage"]
    assert len({r.actor_id for r in checkpoints}) == len(checkpoints)  # the latest of each
    kept = {r.message_id for r in records}
    for message in seen:  # everything else is there, in order
        kind = type(message.event).__name__ if isinstance(message, EventMessage) else ""
        if kind in ("ToolCallEvent", "CommandsAnnouncedEvent"):
            continue
        if type(message).__name__ == "StateChangedMessage":
            continue
        assert message.id in kept, type(message).__name__


def test_the_window_in_memory_is_a_setting_and_stays_bounded() -> None:
    system = ActorSystem(store=MemoryStore())
    try:
        orchestrator = system.createActor(
            Orchestrator, TeamConfig(name="@Orchestrator", window_size=5)
        )
        team = system.proxy_ask(orchestrator, Orchestrator)
        team.createActor("retinue.agent.human_proxy.HumanProxy")
        for n in range(20):
            system.post(
                orchestrator,
                EventMessage(event={"n": n}, sender=orchestrator, team_id=orchestrator.team_id),
            )
        system.wait_idle(10)
        window = team.get_messages()
        assert len(window) == 5
        assert [m.event for m in window if isinstance(m, EventMessage)][-1] == {"n": 19}
        assert system.store is not None and orchestrator.team_id is not None
        assert len(list(system.store.read(orchestrator.team_id))) > 20  # the record has all
    finally:
        system.shutdown(5)
    with pytest.raises(ValueError, match="window_size"):
        TeamConfig(window_size=-1)


class _FlakyStore(MemoryStore):
    """Fails every append while `failing` is set."""

    def __init__(self) -> None:
        super().__init__()
        self.failing = threading.Event()

    def _append(self, team_id: str, records: Sequence[Record]) -> int:
        if self.failing.is_set():
            raise StoreError("the disk is full")
        return super()._append(team_id, records)


def test_a_failing_store_is_logged_once_and_the_record_catches_up_in_order(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(recorder, "RETRY_FIRST", 0.0)  # no backoff: the next commit retries
    store = _FlakyStore()
    team = TeamHarness(store=store)
    try:
        store.failing.set()
        with caplog.at_level(logging.WARNING, logger="retinue.team.recorder"):
            converse(team)
            failures = [r for r in caplog.records if "could not be written" in r.message]
            assert len(failures) == 1 and "the disk is full" in failures[0].getMessage()
            store.failing.clear()
            team.say(team.human, "send @Human response: after")  # the next commit
            team.wait_idle()
        assert any("written again" in r.message for r in caplog.records)
        records = list(store.read(team.team_id))
        assert [r.message_id for r in records[1:]] == [m.id for m in team.recorder.messages]
    finally:
        team.shutdown()


def test_a_store_given_as_a_path_is_opened_by_the_system_and_closed_at_shutdown(
    tmp_path: Path,
) -> None:
    path = tmp_path / "team.sqlite"
    system = ActorSystem(store=str(path))
    orchestrator = system.createActor(Orchestrator)
    assert system.shutdown(5)
    reader = SQLiteStore(path, create=False)
    try:
        (info,) = reader.list_teams()
        assert info.team_id == orchestrator.team_id
        assert [r.kind for r in reader.read(info.team_id)] == ["StartMessage", "StopMessage"]
    finally:
        reader.close()
    with pytest.raises(StoreError, match=r"x\.sqlite could not be opened"):
        ActorSystem(store=str(tmp_path / "nothing" / "x.sqlite"))
