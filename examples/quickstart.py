"""A team in code: a Manager hires a Developer by role and reports back to a person.

Runs offline: both agents use scripted models (plain functions standing in for LLMs). Needs
the kernel and the team plugin, which does the hiring: `pip install ./core ./plugins/team`.
Run it with `python examples/quickstart.py`. README.md shows this file; keep them equal.
"""

from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo
from retinue import (
    ActorSystem,
    AgentCard,
    AgentConfig,
    AgentMessage,
    BaseAgent,
    BaseConfig,
    HumanProxy,
    ModelConfig,
    Orchestrator,
    PromptTemplate,
)
from retinue.console import Console
from retinue.testing import incoming, send


# Scripted models: each reads the message it is answering and returns outbound messages as
# (recipient, intent, text). "Developer" is a role, so sending to it hires one.
def manager(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    got = incoming(messages)
    if got.sender == "@Human":
        return send(info, ("Developer", "request", f"Draft a plan for: {got.content}"))
    return send(info, ("@Human", "response", f"The plan, from {got.sender}: {got.content}"))


def developer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    got = incoming(messages)
    return send(info, (got.sender, "response", "1. scope it  2. build it  3. test it"))


def model(function: str) -> ModelConfig:
    # A real model instead: ModelConfig(provider="openai", model="gpt-4.1")
    return ModelConfig(provider="function", model=f"{__name__}:{function}")


def main() -> None:
    system = ActorSystem()
    orchestrator = system.createActor(
        Orchestrator, BaseConfig(name="@Orchestrator", role="Orchestrator")
    )
    team = system.proxy_ask(orchestrator, Orchestrator)
    team.subscribe(Console())  # print the team's flow as it happens
    manager_card = AgentCard(
        description="Project manager who delegates to specialists",
        agent_class=BaseAgent,
        config=AgentConfig(
            name="@Manager",
            role="Manager",
            prompt=PromptTemplate(template="You are a project manager. Delegate the work."),
            model_cfg=model("manager"),
        ),
        routes_to=["Developer"],  # the roles this agent may hire
    )
    developer_card = AgentCard(
        description="Plans and writes code",
        agent_class=BaseAgent,
        config=AgentConfig(name="@Developer", role="Developer", model_cfg=model("developer")),
    )
    team.register_agent_profiles([manager_card, developer_card])
    human = team.createActor(HumanProxy, BaseConfig(name="@Human", role="Human"))
    manager_address = team.createActor(BaseAgent, manager_card.get_config_copy())

    system.proxy_tell(human, HumanProxy).send(
        manager_address, AgentMessage(content="Plan the next sprint.")
    )
    system.wait_idle(timeout=30)  # every mailbox empty, no handler running
    print("team:", ", ".join(member.name for member in team.get_team_members()))
    system.shutdown()


if __name__ == "__main__":
    main()
