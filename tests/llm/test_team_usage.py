"""The team's tally is a pure fold of the record; costs come from genai-prices, never a table."""

from __future__ import annotations

from datetime import UTC, datetime

from genai_prices import calc_price
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.test import TestModel
from pydantic_ai.usage import RequestUsage
from retinue import (
    BudgetLimitsChangedEvent,
    EventMessage,
    LlmUsageEvent,
    LocalTeamBudget,
    RunStartedEvent,
    TeamUsageLimits,
    ToolCallEvent,
    team_limits_from_events,
    team_usage_from_events,
)
from retinue.llm.pricing import price_response, price_usage
from retinue.llm.response_usage import usage_event
from retinue.llm.team_usage import charge_event

USAGE = RequestUsage(input_tokens=2_000, output_tokens=300, cache_read_tokens=500)


def recorded_run(agent: str, run: str, cost: float | None, model: str = "gpt-4.1") -> list[object]:
    return [
        RunStartedEvent(agent_name=agent, run_id=run),
        ToolCallEvent(agent_name=agent, run_id=run, tool_name="t", tool_call_id="1"),
        LlmUsageEvent(
            agent_name=agent,
            run_id=run,
            model_name=model,
            input_tokens=2_000,
            output_tokens=300,
            total_tokens=2_300,
            cost_usd=cost,
        ),
    ]


def test_the_fold_of_the_record_equals_the_tally_the_budget_kept() -> None:
    events = [
        *recorded_run("@Lead", "r1", 0.01),
        *recorded_run("@Helper", "r2", None, model="test"),
        *recorded_run("@Lead", "r3", 0.02),
    ]
    budget = LocalTeamBudget()
    for event in events:
        if isinstance(event, RunStartedEvent):
            budget.admit(event.agent_name)
        else:
            assert isinstance(event, ToolCallEvent | LlmUsageEvent)
            charge_event(budget, event)

    # The stored forms, wrapped as the runtime records them, mixed with other records.
    stored: list[object] = [EventMessage(event=e) for e in events[:3]]
    stored += [e.model_dump(mode="json") for e in events[3:]]  # type: ignore[attr-defined]
    stored += [{"event_type": "budget_exhausted", "breaches": []}, "noise", {"x": 1}]
    folded = team_usage_from_events(stored)

    assert folded == budget.status().usage
    assert (folded.runs, folded.requests, folded.total_tokens) == (3, 3, 6_900)
    assert folded.cost_usd == 0.03
    assert folded.unpriced_models == ["test"]
    assert folded.by_member["@Helper"].unpriced_requests == 1


def test_the_limits_in_force_are_the_last_change_recorded() -> None:
    initial = TeamUsageLimits(request_limit=10)
    raised = TeamUsageLimits(request_limit=20)
    record: list[object] = [
        *recorded_run("@A", "r", 0.1),
        EventMessage(event=BudgetLimitsChangedEvent(limits=raised, changed_by="@Human")),
    ]
    assert team_limits_from_events(record, initial) == raised
    stored = [BudgetLimitsChangedEvent(limits=initial).model_dump(mode="json")]
    assert team_limits_from_events(stored) == initial
    assert team_limits_from_events([], initial) == initial


def test_a_known_model_is_priced_by_genai_prices_and_an_unknown_one_not_at_all() -> None:
    expected = float(calc_price(USAGE, "gpt-4.1", provider_id="openai").total_price)
    assert price_usage(USAGE, "gpt-4.1", provider_name="openai") == expected
    assert price_usage(USAGE, "gpt-4.1") == expected  # the likeliest provider for the name
    assert price_usage(USAGE, "gpt-4.1", provider_url="https://api.openai.com/v1") == expected
    assert price_usage(USAGE, "test", provider_name="test") is None
    assert price_usage(USAGE, "gpt-4.1", provider_name="function") is None
    assert price_usage(USAGE, None) is None
    assert price_usage(RequestUsage(unmeasured_requests=1), "gpt-4.1") is None

    when = datetime(2026, 1, 1, tzinfo=UTC)
    response = ModelResponse(
        parts=[TextPart("hi")],
        usage=USAGE,
        model_name="gpt-4.1",
        provider_name="openai",
        timestamp=when,
    )
    assert price_response(response) == float(
        calc_price(USAGE, "gpt-4.1", provider_id="openai", genai_request_timestamp=when).total_price
    )


def test_a_scripted_models_usage_says_it_is_scripted_and_a_real_ones_does_not() -> None:
    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[TextPart("hi")])

    for model in (TestModel(), FunctionModel(answer, model_name="script:answer")):
        response = Agent(model).run_sync("hello").all_messages()[-1]
        assert isinstance(response, ModelResponse)
        assert usage_event("@A", response, "r").scripted
    real = ModelResponse(parts=[TextPart("hi")], usage=USAGE, model_name="gpt-4.1")
    real.model_id = "openai:gpt-4.1"
    event = usage_event("@A", real, "r")
    assert not event.scripted and event.cost_usd is not None
    assert LlmUsageEvent.model_validate(event.model_dump(mode="json")) == event
