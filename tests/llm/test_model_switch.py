"""`ReactAgent.use_model`: the seam a card switches an agent's model through, per run."""

from __future__ import annotations

import pytest
from pydantic_ai import RunContext
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from retinue.llm import ConfigError, ModelConfig, ModelSwitchedEvent, ReactAgent, RunnerConfig
from retinue.llm.events import parse_llm_event

from tests.llm.conftest import Events

FIRST = ModelConfig(provider="function", model=f"{__name__}:first")
SECOND = ModelConfig(provider="function", model=f"{__name__}:second")


def first(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return ModelResponse(parts=[TextPart("from first")])


def second(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return ModelResponse(parts=[TextPart("from second")])


def test_the_next_run_uses_the_model_switched_to_and_none_goes_back(events: Events) -> None:
    agent = ReactAgent("switcher", RunnerConfig(model_cfg=FIRST, event_sink=events.append))
    assert agent.run_sync("hi", str) == "from first"

    agent.use_model(SECOND)
    assert agent.model_in_force == SECOND
    assert agent.run_sync("hi", str) == "from second"
    agent.use_model(None)
    assert agent.model_in_force == FIRST
    assert agent.run_sync("hi", str) == "from first"

    switched = events.of(ModelSwitchedEvent)
    assert [e.model_cfg for e in switched] == [SECOND, None]
    assert [parse_llm_event(e.model_dump(mode="json")) for e in switched] == switched


def test_a_switch_inside_a_run_applies_from_the_next_run(events: Events) -> None:
    agent: ReactAgent

    def switch(ctx: RunContext[None]) -> str:
        """Switch models."""
        agent.use_model(SECOND)
        return "switched"

    def calls_then_answers(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        done = any(
            isinstance(part, ToolReturnPart) for message in messages for part in message.parts
        )
        if done:
            return ModelResponse(parts=[TextPart("first, still")])
        return ModelResponse(parts=[ToolCallPart("switch", {})])

    agent = ReactAgent(
        "switcher",
        RunnerConfig(
            model=FunctionModel(calls_then_answers), tools=[switch], event_sink=events.append
        ),
    )
    assert agent.run_sync("go", str) == "first, still"
    assert agent.run_sync("again", str) == "from second"


def test_a_resumed_runner_is_on_the_model_it_had_switched_to(events: Events) -> None:
    agent = ReactAgent("switcher", RunnerConfig(model_cfg=FIRST, event_sink=events.append))
    agent.run_sync("hi", str)
    agent.use_model(SECOND)
    recorded = [e.model_dump(mode="json") for e in events]

    resumed = ReactAgent("switcher", RunnerConfig(model_cfg=FIRST))
    resumed.restore_context([parse_llm_event(data) for data in recorded])

    assert resumed.model_in_force == SECOND
    assert resumed.run_sync("hi", str) == "from second"


def test_a_model_that_cannot_be_built_changes_nothing() -> None:
    agent = ReactAgent("switcher", RunnerConfig(model_cfg=FIRST))
    with pytest.raises(ConfigError, match="has no attribute"):
        agent.use_model(ModelConfig(provider="function", model=f"{__name__}:missing"))
    assert agent.model_in_force == FIRST
    assert agent.run_sync("hi", str) == "from first"
