"""Turn reports: a team with `TeamConfig.turn_reports` has each member report when a turn
begins (`ReceivedMessage`) and ends (`ProcessedMessage`), riding the turn's other reports."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from retinue import (
    ActorAddress,
    AgentMessage,
    BaseAgent,
    HumanProxy,
    ProcessedMessage,
    ReceivedMessage,
    StopRecursively,
    remote,
)
from retinue.actors import (
    Actor,
    ActorSystem,
    BaseConfig,
    ErrorMessage,
    HandledMessage,
    Message,
    SentMessage,
)
from retinue.store import DEFAULT_TELEMETRY, PROTECTED_KINDS, Retention, open_store
from retinue.team import Orchestrator, TeamConfig
from retinue.team.record_codec import decode, encode
from retinue.testing import scripted_card, send_directive
from retinue.testing.team import Recorder


class Job(Message):
    fail: bool = False
    absorb: bool = False


class Worker(Actor[BaseConfig, Any]):
    """Handles a `Job` once `gate` opens (so later mail queues behind it); may fail it, or
    take the jobs queued meanwhile without giving them turns (as `read_mailbox` does)."""

    gate = threading.Event()
    started = threading.Event()

    def receiveMsg_Job(self, message: Job, sender: ActorAddress | None) -> None:
        Worker.started.set()
        assert Worker.gate.wait(10)
        if message.fail:
            raise RuntimeError("the job failed")
        if message.absorb:
            self.consume_mailbox(lambda m: isinstance(m, Job))


class Counting(Orchestrator):
    """An orchestrator that counts the items its mailbox hands it (one per slot)."""

    def on_start(self) -> None:
        self.items = 0
        super().on_start()

    def on_receive(self, message: Any) -> Any:
        self.items += 1
        return super().on_receive(message)

    @remote
    def count(self) -> int:
        return self.items - 1  # this ask is an item too


def _team(turn_reports: bool, **kwargs: Any) -> tuple[ActorSystem, Any, Recorder]:
    system = ActorSystem(ask_timeout=10, **kwargs)
    config = TeamConfig(name="@Orchestrator", role="Orchestrator", turn_reports=turn_reports)
    orchestrator = system.createActor(Counting, config)
    proxy: Any = system.proxy_ask(orchestrator, Counting)
    recorder = Recorder()
    proxy.subscribe(recorder)
    return system, proxy, recorder


@pytest.fixture(autouse=True)
def _open_gate() -> None:
    Worker.gate.set()
    Worker.started.clear()


def _of(recorder: Recorder, kind: type[Any]) -> list[Any]:
    return [m for m in recorder.messages if isinstance(m, kind)]


def _kinds_for(recorder: Recorder, message_id: str) -> list[str]:
    return [
        type(m).__name__
        for m in recorder.messages
        if getattr(m, "message_id", None) == message_id
        or (isinstance(m, ErrorMessage) and m.current_message_id == message_id)
    ]


def test_a_turn_reports_its_start_and_end_and_a_queued_message_shows_its_wait() -> None:
    system, team, recorder = _team(turn_reports=True)
    try:
        worker = team.createActor(Worker, BaseConfig(name="@Worker", role="Worker"))
        Worker.gate.clear()
        system.send(worker, Job())
        assert Worker.started.wait(10)
        system.send(worker, Job(fail=True))  # queues behind the first, which is held
        Worker.gate.set()
        system.wait_idle()
        first, second = [m.message for m in _of(recorder, SentMessage)]

        assert _kinds_for(recorder, first.id) == [
            "ReceivedMessage",
            "ProcessedMessage",
            "HandledMessage",
        ]
        # A failed turn ends too: its error, then its end, then the record's handled mark.
        assert _kinds_for(recorder, second.id) == [
            "ReceivedMessage",
            "ErrorMessage",
            "ProcessedMessage",
            "HandledMessage",
        ]
        received = {m.message_id: m for m in _of(recorder, ReceivedMessage)}
        processed = {m.message_id: m for m in _of(recorder, ProcessedMessage)}
        assert all(m.sender == worker for m in [*received.values(), *processed.values()])
        assert received[first.id].parent_id == first.id  # in the turn's chain, like any report
        assert received[first.id].chain_id == first.chain_id
        # The second waited in the mailbox while the first was handled: the record shows it.
        assert first.timestamp <= received[first.id].timestamp <= processed[first.id].timestamp
        assert second.timestamp < processed[first.id].timestamp <= received[second.id].timestamp
    finally:
        assert system.shutdown(5)


def test_mail_taken_without_a_turn_is_handled_not_received() -> None:
    system, team, recorder = _team(turn_reports=True)
    try:
        worker = team.createActor(Worker, BaseConfig(name="@Worker", role="Worker"))
        Worker.gate.clear()
        system.send(worker, Job(absorb=True))
        assert Worker.started.wait(10)
        system.send(worker, Job())
        Worker.gate.set()
        system.wait_idle()
        reader, taken = [m.message for m in _of(recorder, SentMessage)]
        assert _kinds_for(recorder, taken.id) == ["HandledMessage"]  # no turn: no start or end
        assert _kinds_for(recorder, reader.id) == [
            "ReceivedMessage",
            "ProcessedMessage",
            "HandledMessage",
        ]
        (taken_mark,) = [m for m in _of(recorder, HandledMessage) if m.message_id == taken.id]
        assert taken_mark.parent_id == reader.id  # reported from the turn that took it
    finally:
        assert system.shutdown(5)


def test_a_team_reports_no_turns_unless_asked() -> None:
    system, team, recorder = _team(turn_reports=False)
    try:
        worker = team.createActor(Worker, BaseConfig(name="@Worker", role="Worker"))
        system.send(worker, Job())
        system.wait_idle()
        assert _of(recorder, HandledMessage)
        assert not _of(recorder, ReceivedMessage) and not _of(recorder, ProcessedMessage)
        assert system.local_actor(worker).reports_turns is False  # type: ignore[union-attr]
    finally:
        assert system.shutdown(5)


def _agent_turn_items(plugin_manager: Any, turn_reports: bool) -> tuple[int, list[str]]:
    """Orchestrator mailbox items for one agent's turn (a model run that answers a person)."""
    system, team, recorder = _team(turn_reports, plugin_manager=plugin_manager)
    try:
        human = team.createActor(HumanProxy, BaseConfig(name="@Human", role="Human"))
        card = scripted_card("Worker")
        worker = team.createActor(BaseAgent, card.get_config_copy())
        system.wait_idle()
        before = team.count()
        system.proxy_ask(human).send(
            worker, AgentMessage(content=send_directive("@Human", "response", "done"))
        )
        system.wait_idle()
        after = team.count()
        kinds = [type(m).__name__ for m in recorder.messages if m.sender == worker]
        return after - before - 1, kinds  # the count before is an item too
    finally:
        assert system.shutdown(5)


def test_an_agent_s_turn_reports_take_no_mailbox_slot_of_their_own(
    retinue_plugin_manager: Any,
) -> None:
    plain, plain_kinds = _agent_turn_items(retinue_plugin_manager, turn_reports=False)
    reported, kinds = _agent_turn_items(retinue_plugin_manager, turn_reports=True)
    assert reported == plain
    assert [k for k in kinds if k not in ("ReceivedMessage", "ProcessedMessage")] == plain_kinds
    # The start rides the run's first report; the end closes the turn with its handled mark.
    assert kinds.index("ReceivedMessage") < kinds.index("SentMessage")
    assert kinds[-2:] == ["ProcessedMessage", "HandledMessage"]


@pytest.mark.parametrize(
    "message",
    [ReceivedMessage(message_id="m1"), ProcessedMessage(message_id="m1"), StopRecursively()],
)
def test_the_new_kernel_messages_round_trip_by_value(message: Message) -> None:
    assert decode(encode(message)) == message


def test_turn_reports_are_recorded_as_telemetry_a_store_may_prune(tmp_path: Path) -> None:
    assert {"ReceivedMessage", "ProcessedMessage"} <= DEFAULT_TELEMETRY
    assert not {"ReceivedMessage", "ProcessedMessage"} & PROTECTED_KINDS
    where = tmp_path / "team.sqlite"
    system, team, _ = _team(turn_reports=True, store=where)
    try:
        worker = team.createActor(Worker, BaseConfig(name="@Worker", role="Worker"))
        for _ in range(3):
            system.send(worker, Job())
        system.wait_idle()
    finally:
        assert system.shutdown(5)
    store = open_store(where, create=False)
    try:
        (info,) = store.list_teams()
        kinds = [r.kind for r in store.read(info.team_id)]
        assert kinds.count("ReceivedMessage") == kinds.count("ProcessedMessage") == 3
        store.prune(info.team_id, Retention(keep_telemetry=0))
        kept = [r.kind for r in store.read(info.team_id)]
        assert "ReceivedMessage" not in kept and "ProcessedMessage" not in kept
        assert kept.count("HandledMessage") == 3  # what a resume reads stays
    finally:
        store.close()
