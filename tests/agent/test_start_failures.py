"""An agent that cannot work fails `createActor` itself; a plugin at fault is named.

Never a silent agent: the creator (a person, code, or a `hire_member`) learns at once, and
the team's roster never holds a member that will not answer.
"""

from __future__ import annotations

from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest
from agent_cards import card
from pydantic_ai import RunContext
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.models import ModelRequestContext
from retinue import (
    AgentConfig,
    BaseAgent,
    ConfigError,
    DuplicateToolCardError,
    ErrorMessage,
    FailureNotice,
    ModelConfig,
    PluginError,
    PromptTemplate,
    get_plugin_manager,
    hookimpl,
)
from retinue.testing import PingTool, TeamHarness


def config(script: str = "silent", **fields: Any) -> AgentConfig:
    return AgentConfig(
        name="@Dev",
        role="Developer",
        model_cfg=ModelConfig(provider="function", model=f"agent_scripts:{script}"),
        **fields,
    )


def plugin(name: str, **hooks: Any) -> ModuleType:
    module = ModuleType(name)
    for hook_name, function in hooks.items():
        setattr(module, hook_name, function)
    return module


def team_with(*plugins: ModuleType) -> TeamHarness:
    return TeamHarness(plugin_manager=get_plugin_manager(plugins=plugins))


@pytest.fixture
def harnesses() -> Iterator[list[TeamHarness]]:
    made: list[TeamHarness] = []
    yield made
    for team in made:
        assert team.shutdown(timeout=10)


def assert_not_in_team(team: TeamHarness, name: str) -> None:
    team.wait_idle()
    assert name not in team.roster()


def test_a_prompt_parameter_without_a_value_fails_create_actor(retinue_team: TeamHarness) -> None:
    team = retinue_team
    broken = config(prompt=PromptTemplate(template="You work on {project} for {client}."))

    with pytest.raises(ConfigError, match="parameter 'project'"):
        team.orchestrator_proxy.createActor(BaseAgent, broken)

    assert_not_in_team(team, "@Dev")
    assert team.of(ErrorMessage) == []  # refused up front, not a start that died later


def test_the_same_card_twice_fails_create_actor(retinue_team: TeamHarness) -> None:
    team = retinue_team
    with pytest.raises(DuplicateToolCardError, match="'ping' is given twice"):
        team.orchestrator_proxy.createActor(BaseAgent, config(tools=[PingTool(), PingTool()]))
    assert_not_in_team(team, "@Dev")


def test_a_capability_hook_raising_at_start_fails_create_actor(
    harnesses: list[TeamHarness],
) -> None:
    @hookimpl
    def retinue_capabilities(config: Any) -> list[Any]:
        raise RuntimeError("licence server unreachable")

    team = team_with(plugin("licensed", retinue_capabilities=retinue_capabilities))
    harnesses.append(team)

    with pytest.raises(PluginError) as caught:
        team.orchestrator_proxy.createActor(BaseAgent, config())

    assert "plugin 'licensed'" in str(caught.value)
    assert "licence server unreachable" in str(caught.value)
    assert_not_in_team(team, "@Dev")


class QuotaCapability(AbstractCapability[Any]):
    """Fails every model request, as a capability whose backend is down would."""

    async def before_model_request(
        self, ctx: RunContext[Any], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        raise ValueError("quota exhausted")


class CountingCapability(AbstractCapability[Any]):
    """Passes every request through; a wrapper the failure below travels through."""

    async def wrap_model_request(
        self, ctx: RunContext[Any], *, request_context: ModelRequestContext, handler: Any
    ) -> Any:
        return await handler(request_context)


def test_a_capability_raising_in_a_run_is_reported_with_its_plugin(
    harnesses: list[TeamHarness],
) -> None:
    @hookimpl
    def retinue_capabilities(config: Any) -> list[Any]:
        return [QuotaCapability()]

    team = team_with(plugin("quota", retinue_capabilities=retinue_capabilities))
    harnesses.append(team)
    worker = team.orchestrator_proxy.createActor(BaseAgent, config())

    team.say(worker, "hello")
    team.wait_idle()

    (error,) = team.of(ErrorMessage)
    assert error.exception_type == "PluginError"
    assert "plugin 'quota' (registered in code)" in error.exception_value
    assert "QuotaCapability" in error.exception_value
    assert "ValueError: quota exhausted" in error.exception_value


def test_a_failure_that_only_passes_through_a_plugin_capability_is_not_blamed_on_it(
    harnesses: list[TeamHarness],
) -> None:
    @hookimpl
    def retinue_capabilities(config: Any) -> list[Any]:
        return [CountingCapability()]

    team = team_with(plugin("counting", retinue_capabilities=retinue_capabilities))
    harnesses.append(team)
    worker = team.orchestrator_proxy.createActor(BaseAgent, config("explodes"))

    team.say(worker, "hello")
    team.wait_idle()

    (error,) = team.of(ErrorMessage)
    assert error.exception_type != "PluginError"
    assert "counting" not in error.exception_value


def test_a_capability_hook_failing_for_a_hire_is_told_to_the_person(
    harnesses: list[TeamHarness],
) -> None:
    pytest.importorskip("retinue_team", reason="the manager hires through retinue-team")

    @hookimpl
    def retinue_capabilities(config: Any) -> list[Any]:
        if config.role == "Developer":
            raise RuntimeError("licence server unreachable")
        return []

    team = team_with(plugin("licensed", retinue_capabilities=retinue_capabilities))
    harnesses.append(team)
    team.register(card("Developer", "developer"))
    manager = team.add(card("Manager", "manager"))

    team.say(manager, "plan the sprint")
    team.wait_idle()

    (line,) = [m.content for m in team.received_by("@Human") if isinstance(m, FailureNotice)]
    assert line.startswith("@Developer could not start (hired by @Manager): PluginError: ")
    assert "plugin 'licensed'" in line and "licence server unreachable" in line
    assert_not_in_team(team, "@Developer")
