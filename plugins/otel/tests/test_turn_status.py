"""How a turn's span ends: cancelled, failed, out of budget; and what else a turn records."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator

import pytest
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.trace import StatusCode
from otel_helpers import Spans
from otel_quickstart import REQUEST, start_quickstart
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo
from retinue import (
    AgentCard,
    AgentConfig,
    AgentUsageLimits,
    BaseAgent,
    ModelConfig,
    RunUsageLimits,
)
from retinue.testing import PingTool, TeamHarness, call_tool, incoming, send


def card(role: str, script: str = "", **config: object) -> AgentCard:
    return AgentCard(
        description=f"{role} of the team",
        agent_class=BaseAgent,
        config=AgentConfig(
            name=f"@{role}",
            role=role,
            model_cfg=ModelConfig(provider="function", model=f"otel_scripts:{script or 'answers'}"),
            **config,  # type: ignore[arg-type]
        ),
    )


def events(span: ReadableSpan, name: str) -> list[dict[str, object]]:
    return [dict(event.attributes or {}) for event in span.events if event.name == name]


class Parked:
    """A model whose first request waits until the test lets it go (or the run is stopped)."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.release = threading.Event()

    async def model(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        got = incoming(messages)
        if got.content == "task 1":
            self.entered.set()
            await asyncio.get_running_loop().run_in_executor(None, self.release.wait, 10)
            return call_tool("ping")
        return send(info, (got.sender, "response", f"done: {got.content}"))


@pytest.fixture
def parked() -> Iterator[Parked]:
    model = Parked()
    yield model
    model.release.set()  # never leave a run parked behind the test


def test_a_cancelled_run_ends_its_turn_span_as_cancelled(
    team: TeamHarness, spans: Spans, parked: Parked
) -> None:
    worker = team.add(card("Worker", tools=[PingTool()]), model=parked.model)
    team.say(worker, "task 1")
    assert parked.entered.wait(5)
    team.turns(worker, "/stop", "task 2")

    stopped, after = spans.named("agent turn @Worker")
    assert stopped.status.status_code is StatusCode.ERROR
    assert stopped.status.description is not None and "cancelled" in stopped.status.description
    assert (stopped.attributes or {})["error.type"] == "cancelled"
    (cancel,) = events(stopped, "retinue.cancel")
    assert cancel["retinue.run.status"] == "interrupted"
    assert after.status.status_code is StatusCode.UNSET
    assert not after.events


def test_a_failed_run_ends_its_turn_span_in_error_and_the_notice_stays_in_the_trace(
    team: TeamHarness, spans: Spans
) -> None:
    manager = start_quickstart(team)
    team.register(card("Developer", "explodes"))  # in place of the quick-start's
    team.turns(manager, REQUEST)

    (failed,) = spans.named("agent turn @Developer")
    assert failed.status.status_code is StatusCode.ERROR
    assert "provider outage" in (failed.status.description or "")
    assert (failed.attributes or {})["error.type"] == "RuntimeError"
    (exception,) = events(failed, "exception")
    assert exception["exception.type"] == "RuntimeError"
    assert "provider outage" in str(exception["exception.message"])
    assert events(failed, "retinue.run_failed")
    # The failure notice the Developer's turn sent is handled in the same trace, under it.
    (notice_turn,) = [c for c in spans.children(failed) if c.name.startswith("agent turn")]
    assert notice_turn.name == "agent turn @Manager"
    assert notice_turn.status.status_code is StatusCode.UNSET
    assert len({span.context.trace_id for span in spans.finished()}) == 1  # type: ignore[union-attr]


def test_a_run_out_of_budget_is_an_event_and_its_turn_goes_on(
    team: TeamHarness, spans: Spans
) -> None:
    limits = RunUsageLimits(run_request_limit=2)
    worker = team.add(card("Worker", "pings_forever", tools=[PingTool()], run_usage_limits=limits))
    team.turns(worker, "ping away")

    (turn,) = spans.named("agent turn @Worker")
    (breach,) = events(turn, "retinue.usage_limit")
    assert breach["retinue.limit.tier"] == "run"
    assert turn.status.status_code is StatusCode.UNSET  # it concluded without tools
    assert (turn.attributes or {})["retinue.usage.requests"] == 3
    assert len((turn.attributes or {})["retinue.run.ids"]) == 2  # type: ignore[arg-type]
    assert [m.content for m in team.received_by("@Human")] == ["out of budget"]


def test_a_run_out_of_budget_that_cannot_conclude_fails_its_turn_with_one_breach_event(
    team: TeamHarness, spans: Spans
) -> None:
    limits = RunUsageLimits(run_request_limit=2)
    script = "pings_and_cannot_conclude"
    worker = team.add(card("Worker", script, tools=[PingTool()], run_usage_limits=limits))
    team.turns(worker, "ping away")

    (turn,) = spans.named("agent turn @Worker")
    assert turn.status.status_code is StatusCode.ERROR
    assert (turn.attributes or {})["error.type"] == "RunUsageLimitError"
    (breach,) = events(turn, "retinue.usage_limit")
    assert breach["retinue.limit.tier"] == "run"


def test_an_agent_out_of_budget_fails_its_turn_with_the_breach(
    team: TeamHarness, spans: Spans
) -> None:
    limits = AgentUsageLimits(agent_request_limit=1)
    worker = team.add(card("Worker", agent_usage_limits=limits))
    team.turns(worker, "first", "second")

    first, second = spans.named("agent turn @Worker")
    assert first.status.status_code is StatusCode.UNSET
    assert second.status.status_code is StatusCode.ERROR
    (breach,) = events(second, "retinue.usage_limit")
    assert breach["retinue.limit.tier"] == "agent"
    assert (second.attributes or {})["error.type"] == "AgentUsageLimitError"


def test_a_skipped_route_is_an_event_of_its_turn(team: TeamHarness, spans: Spans) -> None:
    worker = team.add(card("Worker", "to_nobody"))
    team.turns(worker, "write around")

    (turn,) = spans.named("agent turn @Worker")
    (skipped,) = events(turn, "retinue.route_skipped")
    assert skipped["retinue.recipient"] == "@Nobody"


def test_a_fire_is_an_event_of_the_turn_that_fired(team: TeamHarness, spans: Spans) -> None:
    manager = start_quickstart(team)
    team.turns(manager, REQUEST, "/fire_member @Developer")

    command = spans.named("agent turn @Manager")[-1]
    (fired,) = events(command, "retinue.fire")
    assert fired["retinue.member.name"] == "@Developer"
    assert "@Developer" not in team.roster()
