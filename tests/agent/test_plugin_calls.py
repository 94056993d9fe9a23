"""What starting an agent asks of the plugins: its capabilities, and no discovery at all.

Card classes do not change from one agent to the next, so an actor system collects them
once, when its first agent is built; every later agent, a hire included, reads them from
there. Only `retinue_capabilities`, which is about one agent's config, is called per agent.
"""

from __future__ import annotations

import importlib.metadata
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from types import ModuleType
from typing import Any, ClassVar

import pytest
from retinue import (
    AgentConfig,
    BaseAgent,
    ModelConfig,
    ToolCard,
    get_plugin_manager,
    hookimpl,
)
from retinue.testing import TeamHarness


class StampTool(ToolCard):
    """A card that does nothing: something for a plugin to provide."""

    name: ClassVar[str] = "stamp"


class SealTool(ToolCard):
    """A default card of a plugin registered after the first agent started."""

    name: ClassVar[str] = "seal"
    default: ClassVar[bool] = True

    def get_commands(self) -> Sequence[Callable[..., Any]]:
        return [self.seal]

    def seal(self) -> str:
        """Seal the letter."""
        return "sealed"


def config(name: str) -> AgentConfig:
    return AgentConfig(
        name=name,
        role="Developer",
        model_cfg=ModelConfig(provider="function", model="agent_scripts:silent"),
        tools=["stamp"],
    )


def counting_plugin(name: str, calls: Counter[str], *cards: type[ToolCard]) -> ModuleType:
    """A plugin made in code that counts how often the kernel calls each of its hooks."""

    @hookimpl
    def retinue_tool_cards() -> list[type[ToolCard]]:
        calls["retinue_tool_cards"] += 1
        return list(cards)

    @hookimpl
    def retinue_capabilities(config: AgentConfig) -> list[Any]:
        calls["retinue_capabilities"] += 1
        return []

    module = ModuleType(name)
    module.retinue_tool_cards = retinue_tool_cards  # type: ignore[attr-defined]
    module.retinue_capabilities = retinue_capabilities  # type: ignore[attr-defined]
    return module


@pytest.fixture
def harnesses() -> Iterator[list[TeamHarness]]:
    made: list[TeamHarness] = []
    yield made
    for team in made:
        assert team.shutdown(timeout=10)


def test_cards_are_collected_once_per_actor_system_not_per_agent(
    harnesses: list[TeamHarness],
) -> None:
    calls: Counter[str] = Counter()
    pm = get_plugin_manager(autoload=False, plugins=[counting_plugin("stamps", calls, StampTool)])
    team = TeamHarness(plugin_manager=pm)
    harnesses.append(team)

    for n in range(5):
        team.orchestrator_proxy.createActor(BaseAgent, config(f"@Dev{n}"))
    team.wait_idle()

    assert calls == {"retinue_tool_cards": 1, "retinue_capabilities": 5}
    assert len(team.roster()) == 1 + 5  # the @Human and the five


def test_a_plugin_registered_after_the_first_agent_is_seen_by_the_next(
    harnesses: list[TeamHarness],
) -> None:
    calls: Counter[str] = Counter()
    pm = get_plugin_manager(autoload=False, plugins=[counting_plugin("stamps", calls, StampTool)])
    team = TeamHarness(plugin_manager=pm)
    harnesses.append(team)
    first = team.orchestrator_proxy.createActor(BaseAgent, config("@First"))

    pm.register(counting_plugin("seals", calls, SealTool))
    second = team.orchestrator_proxy.createActor(BaseAgent, config("@Second"))
    team.wait_idle()

    def owners(address: Any) -> set[str | None]:
        return {d.owner for d in team.proxy(address).command_registry.descriptors()}

    assert "seal" not in owners(first)
    assert "seal" in owners(second)
    assert calls["retinue_tool_cards"] == 3  # once for the first set, once per plugin after


def test_an_actor_system_discovers_entry_points_once(
    harnesses: list[TeamHarness], monkeypatch: pytest.MonkeyPatch
) -> None:
    loads: Counter[str] = Counter()
    load = importlib.metadata.EntryPoint.load

    def counted(entry_point: importlib.metadata.EntryPoint) -> Any:
        loads[entry_point.group] += 1
        return load(entry_point)

    monkeypatch.setattr(importlib.metadata.EntryPoint, "load", counted)
    team = TeamHarness()  # no manager given: the system discovers one
    harnesses.append(team)
    team.orchestrator_proxy.createActor(BaseAgent, config_without_cards("@First"))
    after_first = loads["retinue"]

    for n in range(4):
        team.orchestrator_proxy.createActor(BaseAgent, config_without_cards(f"@Dev{n}"))
    team.wait_idle()

    assert loads["retinue"] == after_first
    assert after_first == len(importlib.metadata.entry_points(group="retinue"))


def config_without_cards(name: str) -> AgentConfig:
    return config(name).model_copy(update={"tools": []})
