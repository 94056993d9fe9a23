"""A cascading `/stop`: the target's run, the sub-team it set going, their queued mail of
that chain; other chains go on (issue 13 item 1). Real actors, scripted models parked on
events (never sleeps)."""

from __future__ import annotations

import asyncio
import threading
from collections import defaultdict
from collections.abc import Iterator

import pytest
from agent_cards import card
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo
from retinue import (
    ActorAddress,
    AgentMessage,
    BaseAgent,
    CancelMessage,
    ChainMessageDroppedEvent,
    ChainStoppedEvent,
    ErrorMessage,
    EventMessage,
    EventSubscriber,
    FailureNotice,
    Message,
    RoutingSkippedEvent,
    RunFinishedEvent,
    StructuredOutput,
)
from retinue.testing import TeamHarness, incoming, send

pytest.importorskip("retinue_team", reason="the sub-team is hired by role: needs retinue-team")


class Parking:
    """Runs park at named spots (the model request in flight) until the test lets them go."""

    def __init__(self) -> None:
        self.entered: defaultdict[str, threading.Event] = defaultdict(threading.Event)
        self.go: defaultdict[str, threading.Event] = defaultdict(threading.Event)

    async def park(self, spot: str) -> None:
        self.entered[spot].set()
        await asyncio.get_running_loop().run_in_executor(None, self.go[spot].wait, 10)

    def release_all(self) -> None:
        for spot in list(self.entered):
            self.go[spot].set()


@pytest.fixture
def parking() -> Iterator[Parking]:
    fresh = Parking()
    yield fresh
    fresh.release_all()  # never leave a run parked behind the test


def chain_team(team: TeamHarness, parking: Parking) -> None:
    """A manager delegates to a developer, who hires a tester; each ends parked in a run.

    Manager: "ship the parser" → Developer. Developer → Tester (hired) + an update to the
    manager, which parks the manager's second run. Tester → a question and two reports to
    the developer; the developer answers (and sends the manager a second update, which
    queues behind the manager's parked run), then parks on the first report (the second
    queues behind it); the tester parks on the answer. Other tasks are answered at once,
    in their own chains.
    """

    async def manager(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        got = incoming(messages)
        if got.content == "ship the parser":
            return send(info, ("Developer", "request", "build the parser"))
        if got.content.startswith("update"):
            await parking.park("manager")
            return send(info, ("@Human", "response", "manager done"))
        return send(info, ("@Human", "response", f"manager: {got.content}"))

    async def developer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        got = incoming(messages)
        if got.content == "build the parser":
            return send(
                info,
                ("Tester", "request", "test the parser"),
                ("@Manager", "notification", "update: tester hired"),
            )
        if got.content.startswith("question"):
            return send(
                info,
                ("@Tester", "response", "answer: use pytest"),
                ("@Manager", "notification", "update 2: framework chosen"),
            )
        if got.content.startswith("report"):
            await parking.park("developer")
            return send(info, ("@Manager", "response", "parser built"))
        return send(info, ("@Human", "response", f"developer: {got.content}"))

    async def tester(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        got = incoming(messages)
        if got.content == "test the parser":
            return send(
                info,
                ("@Developer", "request", "question: which framework?"),
                ("@Developer", "notification", "report: tests started"),
                ("@Developer", "notification", "report 2: first results"),
            )
        await parking.park("tester")
        return send(info, ("@Developer", "response", "tests pass"))

    async def writer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        got = incoming(messages)
        await parking.park("writer")
        return send(info, ("@Human", "response", f"writer: {got.content}"))

    team.register(card("Developer"), model=developer)
    team.register(card("Tester"), model=tester)
    team.add(card("Manager"), model=manager)
    team.add(card("Writer"), model=writer)


def to_human(team: TeamHarness) -> list[str]:
    return [m.content for m in team.received_by("@Human")]


def member(team: TeamHarness, name: str) -> ActorAddress:
    address: ActorAddress | None = team.orchestrator_proxy.get_team_member(name)
    assert address is not None, f"{name} is not in the team"
    return address


def test_stop_to_the_manager_stops_the_three_runs_and_their_chain_but_no_other(
    retinue_team: TeamHarness, parking: Parking
) -> None:
    team = retinue_team
    chain_team(team, parking)
    manager, writer = member(team, "@Manager"), member(team, "@Writer")
    team.say(writer, "a haiku")  # an unrelated chain, in flight during the stop
    team.say(manager, "ship the parser")
    for spot in ("manager", "developer", "tester", "writer"):
        assert parking.entered[spot].wait(10), f"the {spot} never parked"
    developer = member(team, "@Developer")
    team.say(developer, "the changelog")  # another chain, queued behind the developer's run

    team.say(manager, "/stop")
    parking.go["writer"].set()  # the unrelated chain may finish now, the stopped ones may not
    team.wait_idle()

    replies = to_human(team)
    stops = [r for r in replies if r.startswith("Stopped")]
    assert stops == [
        "Stopped @Manager's task (its run and the work it handed on): @Manager, @Developer "
        "and @Tester. 1 queued message was dropped. Late mail of that task to them is "
        "dropped; send /continue to @Manager to open it again."
    ]
    assert "Run interrupted." not in replies  # the person is told once, by the target
    assert "writer: a haiku" in replies  # the unrelated chain completed
    assert "developer: the changelog" in replies  # so did the developer's other chain
    assert not {"manager done", "parser built"} & set(replies)

    interrupted = {e.agent_name for e in team.events(RunFinishedEvent) if e.status == "interrupted"}
    assert interrupted == {"@Manager", "@Developer", "@Tester"}
    dropped = team.events(ChainMessageDroppedEvent)  # the chain's queued mail, at each member
    assert sorted((d.agent.name, d.sender) for d in dropped) == [
        ("@Developer", "@Tester"),
        ("@Manager", "@Developer"),
    ]
    (stopped,) = team.events(ChainStoppedEvent)
    assert stopped.stop.kind == "cancel"
    assert stopped.stop.members == ("@Developer", "@Manager", "@Tester")
    assert "tests pass" not in [m.content for m in team.sent()]  # nobody restarted work
    assert team.of(ErrorMessage) == []
    assert not [m for m in team.sent() if isinstance(m, FailureNotice)]  # a stop is no failure


class Announced(EventSubscriber):
    """Sets `seen` once the orchestrator records an event of `kind`."""

    def __init__(self, kind: type[object]) -> None:
        self.kind = kind
        self.seen = threading.Event()

    def on_message(self, message: Message) -> None:
        if isinstance(message, EventMessage) and isinstance(message.event, self.kind):
            self.seen.set()


def test_a_late_reply_in_a_stopped_chain_restarts_nothing(retinue_team: TeamHarness) -> None:
    team = retinue_team
    routing, release = threading.Event(), threading.Event()

    class SlowRouter(BaseAgent):
        def _route_output(self, output: StructuredOutput) -> bool:
            routing.set()
            release.wait(10)
            return super()._route_output(output)

    def manager(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        got = incoming(messages)
        if got.sender == "@Human":
            return send(info, ("Developer", "request", "build the parser"))
        return send(info, ("@Human", "response", f"manager: {got.content}"))

    def developer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return send(info, ("Tester", "request", "test it"), ("@Manager", "response", "built"))

    team.register(card("Developer", agent_class=SlowRouter), model=developer)
    team.register(card("Tester"), model=developer)
    manager_address = team.add(card("Manager"), model=manager)
    stopped = Announced(ChainStoppedEvent)
    team.orchestrator_proxy.subscribe(stopped)
    try:
        team.say(manager_address, "ship the parser")
        assert routing.wait(10)  # the developer's run is over; its output is on its way
        team.say(manager_address, "/stop")  # the manager is idle: its handed-on work stops
        assert stopped.seen.wait(10)  # the chain is closed before the late output goes out
    finally:
        release.set()
    team.wait_idle()

    replies = to_human(team)
    assert [r for r in replies if r.startswith("Stopped")] == [
        "Stopped @Manager's task (the work it handed on): @Manager and @Developer. Late mail "
        "of that task to them is dropped; send /continue to @Manager to open it again."
    ]
    assert "@Tester" not in team.roster()  # the late output hired nobody
    assert "manager: built" not in replies
    skipped = team.events(RoutingSkippedEvent)
    assert {s.recipient for s in skipped} == {"Tester", "@Manager"}
    assert all("stopped by @Human" in s.reason for s in skipped)


def test_mail_of_a_stopped_chain_is_dropped_until_the_person_writes_into_it(
    retinue_team: TeamHarness,
) -> None:
    team = retinue_team

    def manager(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        got = incoming(messages)
        if got.content == "ship the parser":
            return send(info, ("Developer", "request", "build the parser"))
        return send(info, ("@Human", "response", f"manager: {got.content}"))

    def developer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        got = incoming(messages)
        if got.sender == "@Manager":
            return send(info)  # takes the work and says nothing yet
        return send(info, ("@Human", "response", f"developer: {got.content}"))

    team.register(card("Developer"), model=developer)
    manager_address = team.add(card("Manager"), model=manager)
    team.say(manager_address, "ship the parser")
    team.wait_idle()
    (task,) = [m for m in team.sent() if m.content == "build the parser"]
    chain = task.chain_id
    developer_address = member(team, "@Developer")
    team.say(manager_address, "/stop")
    team.wait_idle()

    # A late message of the chain from an agent: dropped, reported, no turn.
    team.system.send(
        developer_address,
        AgentMessage(content="late news", chain_id=chain),
        sender=manager_address,
    )
    team.wait_idle()
    assert [d.message_id for d in team.events(ChainMessageDroppedEvent)] == [
        team.received_by("@Developer")[-1].id
    ]
    assert "developer: late news" not in to_human(team)

    # The person writing into the chain opens it again.
    team.system.proxy_ask(team.human).send(
        developer_address, AgentMessage(content="go on after all", chain_id=chain)
    )
    team.wait_idle()
    assert "developer: go on after all" in to_human(team)


def test_a_plain_cancel_message_stops_one_run_only(
    retinue_team: TeamHarness, parking: Parking
) -> None:
    team = retinue_team
    chain_team(team, parking)
    manager = member(team, "@Manager")
    team.say(manager, "ship the parser")
    for spot in ("manager", "developer", "tester"):
        assert parking.entered[spot].wait(10)
    team.system.send(manager, CancelMessage())
    parking.release_all()  # the developer's and tester's runs were never stopped: they finish
    team.wait_idle()
    replies = to_human(team)
    assert replies.count("Run interrupted.") >= 1
    assert not [r for r in replies if r.startswith("Stopped")]
    interrupted = {e.agent_name for e in team.events(RunFinishedEvent) if e.status == "interrupted"}
    assert interrupted == {"@Manager"}  # the developer and tester finished their runs
    assert "tests pass" in [m.content for m in team.sent()]


def test_a_cascading_cancel_message_from_code_tells_the_person_once(
    retinue_team: TeamHarness, parking: Parking
) -> None:
    team = retinue_team
    chain_team(team, parking)
    manager = member(team, "@Manager")
    team.say(manager, "ship the parser")
    for spot in ("manager", "developer", "tester"):
        assert parking.entered[spot].wait(10)
    team.system.send(manager, CancelMessage(cascade=True))
    team.wait_idle()
    replies = to_human(team)
    assert len([r for r in replies if r.startswith("Stopped")]) == 1
    interrupted = {e.agent_name for e in team.events(RunFinishedEvent) if e.status == "interrupted"}
    assert interrupted == {"@Manager", "@Developer", "@Tester"}


def test_the_stop_round_trips_and_an_idle_agent_with_nothing_handed_on_answers_as_before(
    retinue_team: TeamHarness,
) -> None:
    team = retinue_team
    worker = team.add(card("Worker", "silent"))
    answer = team.command(worker, "/stop")
    assert "no run" in answer.lower()
    cancel = CancelMessage(cascade=True, stop_chain="c1")
    assert CancelMessage.model_validate(cancel.model_dump()) == cancel


def test_a_failure_in_the_stopped_task_still_reaches_the_person_and_the_stop_adds_none(
    retinue_team: TeamHarness, parking: Parking
) -> None:
    team = retinue_team

    def manager(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return send(info, ("Developer", "request", "build the parser"))

    async def developer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        got = incoming(messages)
        if got.intent == "failure":  # the tester failed: the developer thinks it over
            await parking.park("developer")
            return send(info, ("Tester", "request", "try again"))
        return send(info, ("Tester", "request", "test the parser"))

    def tester(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        raise ConnectionError("the model provider is down")

    team.register(card("Developer"), model=developer)
    team.register(card("Tester"), model=tester)
    manager_address = team.add(card("Manager"), model=manager)
    team.say(manager_address, "ship the parser")
    assert parking.entered["developer"].wait(10)
    team.say(manager_address, "/stop")
    team.wait_idle()

    replies = to_human(team)
    failures = [r for r in replies if "ConnectionError" in r]
    stops = [r for r in replies if r.startswith("Stopped")]
    assert len(failures) == 1  # the failure reached the person, once
    assert len(stops) == 1 and "@Developer and @Tester" in stops[0]
    notices = [m for m in team.sent() if isinstance(m, FailureNotice)]
    assert [
        (n.sender.name if n.sender else None, n.recipient.name if n.recipient else None)
        for n in notices
        if n.type == "response"
    ] == [("@Tester", "@Developer")]
    assert "@Tester2" not in team.roster()  # the developer's retry never went out
