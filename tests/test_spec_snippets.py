"""The spec's code snippets, run with only their import lines (and the model) changed.

Cross-distribution: these need retinue-team (hiring by role) and run where it is installed.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest

pytest.importorskip("retinue_team", reason="the spec's team flows hire through retinue-team")

from retinue import (
    ActorSystem,
    AgentCard,
    AgentConfig,
    AgentMessage,
    AgentUsageLimits,
    BaseAgent,
    BaseConfig,
    EventMessage,
    EventSubscriber,
    HumanProxy,
    Message,
    ModelConfig,
    Orchestrator,
    PromptTemplate,
    RunUsageLimits,
    SentMessage,
    ToolCallEvent,
)


class MessagePrinter(EventSubscriber):
    def __init__(self) -> None:
        self.lines: list[str] = []

    def on_message(self, message: Message) -> None:
        if isinstance(message, SentMessage):
            assert message.sender is not None and message.recipient is not None
            self.lines.append(
                f"[{message.sender.name}] → {message.recipient.name}: {message.message.content}"  # type: ignore[attr-defined]
            )
        elif isinstance(message, EventMessage) and isinstance(message.event, ToolCallEvent):
            self.lines.append(f"TOOL: {message.event.tool_name}")


def test_quick_start() -> None:
    actor_system = ActorSystem()
    try:
        orchestrator_addr = actor_system.createActor(
            Orchestrator, config=BaseConfig(name="@Orchestrator", role="Orchestrator")
        )
        orchestrator_proxy: Any = actor_system.proxy_ask(orchestrator_addr, Orchestrator)
        printer = MessagePrinter()
        orchestrator_proxy.subscribe(printer)

        manager_card = AgentCard(
            description="Project manager who coordinates specialists",
            skills=["coordination", "delegation"],
            agent_class="retinue.BaseAgent",
            config=AgentConfig(
                name="@Manager",
                role="Manager",
                prompt=PromptTemplate(template="You are a project manager. Delegate."),
                model_cfg=ModelConfig(provider="function", model="tests.spec_models:manager"),
            ),
            routes_to=["Developer", "QA"],
        )
        developer_card = AgentCard(
            description="Writes code",
            skills=["python"],
            agent_class="retinue.BaseAgent",
            config=AgentConfig(
                name="@Developer",
                role="Developer",
                model_cfg=ModelConfig(provider="function", model="tests.spec_models:developer"),
            ),
        )
        orchestrator_proxy.register_agent_profiles([manager_card, developer_card])

        human_addr = orchestrator_proxy.createActor(
            HumanProxy, config=BaseConfig(name="@Human", role="Human")
        )
        human_proxy: Any = actor_system.proxy_tell(human_addr, HumanProxy)
        manager_addr = orchestrator_proxy.createActor(
            BaseAgent, config=manager_card.get_config_copy()
        )
        human_proxy.send(manager_addr, AgentMessage(content="Plan the next sprint."))
        actor_system.wait_idle(30)  # instead of the spec's sleep

        assert printer.lines == [
            "[@Human] → @Manager: Plan the next sprint.",
            "[@Manager] → @Developer: Estimate the sprint",
            "[@Developer] → @Manager: five days",
            "[@Manager] → @Human: Sprint planned (five days)",
        ]

        # Slash commands, sent straight from the human's address.
        human_addr.send(manager_addr, AgentMessage(content="/team_members"))
        actor_system.wait_idle(30)
        assert "@Developer" in printer.lines[-1]
    finally:
        assert actor_system.shutdown(timeout=10)


def test_two_tier_configuration_and_the_old_spelling() -> None:
    config = AgentConfig(
        name="@Manager",
        role="Manager",
        model_cfg=ModelConfig(provider="test", model="test"),
        run_usage_limits=RunUsageLimits(run_request_limit=50, total_tokens_limit=100_000),
        agent_usage_limits=AgentUsageLimits(agent_request_limit=200, total_tokens_limit=2_000_000),
    )
    assert config.run_usage_limits.run_request_limit == 50
    assert AgentUsageLimits().agent_request_limit is None
    # `usage_limits=` is the deprecated keyword: accepted, but not in the signature
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        old = AgentConfig(usage_limits=RunUsageLimits(run_request_limit=7))  # type: ignore[call-arg]
        assert old.usage_limits.run_request_limit == 7
    assert {w.category for w in caught} == {DeprecationWarning}
    with pytest.raises(ValueError, match="not both"):
        AgentConfig(usage_limits=RunUsageLimits(), run_usage_limits=RunUsageLimits())  # type: ignore[call-arg]


def test_agent_card_has_no_role_keyword() -> None:
    config = AgentConfig(name="@Developer", role="Developer")
    card = AgentCard(
        description="Writes and reviews code",
        skills=["python", "testing"],
        agent_class="retinue.BaseAgent",
        config=config,
        routes_to=["Reviewer", "Tester"],
    )
    assert card.role == "Developer"
    with pytest.raises(ValueError, match="role"):
        AgentCard(description="x", agent_class="retinue.BaseAgent", config=config, role="QA")  # type: ignore[call-arg]
