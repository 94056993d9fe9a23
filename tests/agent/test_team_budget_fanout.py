"""A team budget that holds under fan-out: many members asked at once, and raises racing runs.

Real teams on one scripted model: every run pings twice and then answers, three requests of
63 tokens each. The first request of each run waits at a gate the test opens, so the runs
the budget admits are in flight together.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import AsyncIterator, Iterator

import pytest
from agent_cards import card
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel
from pydantic_ai.usage import RequestUsage
from retinue import (
    ActorAddress,
    BudgetExhaustedEvent,
    BudgetSpentMessage,
    EventSubscriber,
    Message,
    RunFinishedEvent,
    SentMessage,
    TeamUsageLimits,
    team_usage_from_events,
)
from retinue.testing import (
    PingTool,
    TeamHarness,
    agent_name,
    call_tool,
    run_messages,
    send,
    tool_returns,
)

USAGE = RequestUsage(input_tokens=50, output_tokens=13)
MEMBERS = 20


class Pings:
    """Two pings, then an answer to nobody; counts what reaches the model, by member."""

    def __init__(self) -> None:
        self.gate = threading.Event()
        self.entered = threading.Event()
        self.lock = threading.Lock()
        self.requests: Counter[str] = Counter()

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        with self.lock:
            self.requests[agent_name(info)] += 1
        pings = len(tool_returns(run_messages(messages, info)))
        if pings == 0:
            self.entered.set()
            assert self.gate.wait(30), "the test never opened the gate"
        response = call_tool("ping") if pings < 2 else send(info)
        response.usage = USAGE
        return response

    @property
    def total(self) -> int:
        with self.lock:
            return sum(self.requests.values())


class SpentWatch(EventSubscriber):
    """Set when the budget has a member tell the person that a limit was reached."""

    def __init__(self) -> None:
        self.spent = threading.Event()

    def on_message(self, message: Message) -> None:
        if isinstance(message, SentMessage) and isinstance(message.message, BudgetSpentMessage):
            self.spent.set()


@pytest.fixture
def pings() -> Iterator[Pings]:
    script = Pings()
    yield script
    script.gate.set()  # no model thread is left waiting, whatever the test did


def fan_out(
    limits: TeamUsageLimits, script: Pings, watch: SpentWatch | None = None
) -> tuple[TeamHarness, list[ActorAddress]]:
    """A team of 20 workers on `script`, each asked once, back to back."""
    team = TeamHarness(budget=limits)
    if watch is not None:
        team.orchestrator_proxy.subscribe(watch)
    model = FunctionModel(script)
    workers = [team.add(card(f"W{n}", tools=[PingTool()]), model=model) for n in range(MEMBERS)]
    for worker in workers:
        team.say(worker, "Ping twice.")
    return team, workers


def notices(team: TeamHarness) -> list[str]:
    return [m.content for m in team.received_by("@Human") if "budget is spent" in m.content]


def assert_no_charge_lost_or_doubled(team: TeamHarness, script: Pings) -> None:
    """What reached the model, the budget's tally and the record's fold are the same."""
    usage = team.budget_status().usage
    assert usage.requests == script.total
    assert usage.total_tokens == script.total * USAGE.total_tokens
    assert {name: m.requests for name, m in usage.by_member.items()} == dict(script.requests)
    assert team_usage_from_events(team.events()) == usage


def test_twenty_members_asked_at_once_send_exactly_the_request_limit(pings: Pings) -> None:
    watch = SpentWatch()
    team, workers = fan_out(TeamUsageLimits(request_limit=10), pings, watch)
    try:
        assert watch.spent.wait(30), "ten reservations should reach the limit"
        pings.gate.set()  # ten runs admitted, each waiting at its first request
        team.wait_idle(60)

        status = team.budget_status()
        # Each request was reserved before it was sent: ten reached a model, of 60 asked for.
        assert pings.total == 10
        assert status.usage.requests == 10
        assert status.usage.runs == status.peak_in_flight == 10
        assert (status.in_flight, status.reserved_requests) == (0, 0)
        assert_no_charge_lost_or_doubled(team, pings)
        # Runs refused at the start and runs cut before their next request all hold theirs.
        assert status.holders == sorted(w.name for w in workers)
        [notice] = notices(team)
        assert notice.startswith("The team's budget is spent (requests: 10 used of 10 allowed).")
        assert len(team.events(BudgetExhaustedEvent)) == 1

        # A raise lets every held message run: ten from the start, ten cut after their first
        # ping, which their models see in the history and do not repeat.
        team.say(workers[0], "/budget raise requests=61")
        team.wait_idle(60)
        assert pings.total == 10 + 10 * 3 + 10 * 2
        assert_no_charge_lost_or_doubled(team, pings)
        finished = [e for e in team.events(RunFinishedEvent) if e.status == "completed"]
        assert len(finished) == MEMBERS
        assert team.budget_status().holders == []
        assert len(notices(team)) == 1  # never spent again
    finally:
        team.shutdown()


def test_under_a_token_limit_the_spend_ends_within_one_request_per_run_in_flight(
    pings: Pings,
) -> None:
    limit = 1_266
    team, _ = fan_out(TeamUsageLimits(total_tokens_limit=limit), pings)
    try:
        pings.gate.set()
        team.wait_idle(60)

        status = team.budget_status()
        spent = status.usage.total_tokens
        # A request starts only while the team's tokens, counted as each response arrives,
        # are below the limit: past it by at most the requests then in flight, one a run.
        assert limit <= spent <= limit - 1 + USAGE.total_tokens * status.peak_in_flight
        assert pings.total < 3 * MEMBERS
        assert_no_charge_lost_or_doubled(team, pings)
        assert len(notices(team)) == 1
    finally:
        team.shutdown()


def test_a_raise_racing_with_runs_neither_loses_nor_doubles_a_charge(pings: Pings) -> None:
    watch = SpentWatch()
    team, workers = fan_out(TeamUsageLimits(request_limit=10), pings, watch)
    clerk = team.add(card("Clerk"), model=pings)
    try:
        assert watch.spent.wait(30), "ten reservations should reach the limit"
        # The raise lands while the admitted runs wait at the gate, the others are being
        # refused, and then while every run reserves its next request.
        team.say(clerk, "/budget raise requests=15")
        pings.gate.set()
        team.wait_idle(60)

        status = team.budget_status()
        assert status.limits.request_limit == 25
        assert pings.total == status.usage.requests == 25
        assert (status.in_flight, status.reserved_requests) == (0, 0)
        assert_no_charge_lost_or_doubled(team, pings)
        # Told once per exhaustion: at 10 before the raise, at 25 after it.
        assert sorted(n.split(")")[0] for n in notices(team)) == [
            "The team's budget is spent (requests: 10 used of 10 allowed",
            "The team's budget is spent (requests: 25 used of 25 allowed",
        ]
        assert len(team.events(BudgetExhaustedEvent)) == 2
        assert len(workers) == MEMBERS
    finally:
        team.shutdown()


def test_token_raises_racing_with_runs_keep_the_spend_within_one_request_per_run(
    pings: Pings,
) -> None:
    limit = 1_266
    team, _ = fan_out(TeamUsageLimits(total_tokens_limit=limit), pings)
    clerk = team.add(card("Clerk"), model=pings)
    try:
        pings.gate.set()
        for _ in range(20):  # each raise lands among the runs' requests
            team.say(clerk, "/budget raise tokens=1")
        team.wait_idle(60)

        status = team.budget_status()
        assert status.limits.total_tokens_limit == limit + 20
        spent = status.usage.total_tokens
        assert spent <= limit + 20 - 1 + USAGE.total_tokens * status.peak_in_flight
        assert pings.total < 3 * MEMBERS
        assert_no_charge_lost_or_doubled(team, pings)
    finally:
        team.shutdown()


def test_one_run_stops_at_the_team_request_limit_its_own_tier_would_pass() -> None:
    asked: list[int] = []

    def pings_forever(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        asked.append(len(asked))
        return call_tool("ping")

    team = TeamHarness(budget=TeamUsageLimits(request_limit=5))
    try:
        worker = team.add(card("Worker", tools=[PingTool()]), model=pings_forever)
        team.say(worker, "Ping until you are stopped.")
        team.wait_idle()
        status = team.budget_status()
        # The run tier allows 50 requests a run: the team's remainder (5) capped it.
        assert len(asked) == status.usage.requests == 5
        assert status.holders == ["@Worker"]
        assert len(notices(team)) == 1
    finally:
        team.shutdown()


def test_an_interrupted_run_gives_back_what_it_reserved(pings: Pings) -> None:
    team = TeamHarness(budget=TeamUsageLimits(request_limit=3))
    try:
        worker = team.add(card("Worker", tools=[PingTool()]), model=pings)
        team.say(worker, "Ping twice.")
        assert pings.entered.wait(30)
        team.say(worker, "/stop")  # its first request waits at the gate: the stop ends it
        team.wait_idle()
        status = team.budget_status()
        assert status.usage.runs == 1
        assert (status.usage.requests, status.reserved_requests, status.in_flight) == (0, 0, 0)
        pings.gate.set()
        team.say(worker, "Ping twice.")
        team.wait_idle()
        assert team.budget_status().usage.requests == 3  # the whole limit was there again
        assert notices(team) == [
            "The team's budget is spent (requests: 3 used of 3 allowed). The team starts no "
            "new run: messages that arrive are held, not lost, and handled after a raise, e.g. "
            "`/budget raise requests=100 tokens=100000 usd=1`; `/budget` shows the figures."
        ]
    finally:
        team.shutdown()


def test_a_streamed_response_counts_as_it_arrives() -> None:
    """A run whose team listens to outputs streams: its responses are told to the budget too."""
    streamed: list[str] = []

    async def stream(
        messages: list[ModelMessage], info: AgentInfo
    ) -> AsyncIterator[DeltaToolCalls]:
        streamed.append(agent_name(info))
        if not tool_returns(run_messages(messages, info)):
            yield {0: DeltaToolCall(name="ping", json_args="{}", tool_call_id="p1")}
            return
        args = '{"messages": []}'
        yield {0: DeltaToolCall(name=info.output_tools[0].name, json_args=args, tool_call_id="o1")}

    def whole(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        raise AssertionError("a listened run streams")

    team = TeamHarness(budget=TeamUsageLimits(total_tokens_limit=1))
    try:
        team.orchestrator_proxy.listen_to_outputs(Silent())
        model = FunctionModel(whole, stream_function=stream)
        worker = team.add(card("Worker", tools=[PingTool()]), model=model)
        team.say(worker, "Ping, then answer.")
        team.wait_idle()
        # The ping's tokens reached the budget before the answer's request: it was refused.
        assert streamed == ["@Worker"]
        assert team.budget_status().usage.total_tokens >= 1
        assert team.budget_status().holders == ["@Worker"]
        assert len(notices(team)) == 1
    finally:
        team.shutdown()


class Silent:
    """An output listener that only makes the team's runs stream."""

    def on_output(self, agent: str, run_id: str, output: object) -> None:
        pass
