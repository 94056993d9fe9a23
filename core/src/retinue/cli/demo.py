"""`retinue demo`: a small team on scripted models, printed as it talks."""

from __future__ import annotations

from typing import Any, TextIO

from retinue.actors.config import BaseConfig
from retinue.actors.messages import EventMessage, Message, SentMessage
from retinue.actors.system import ActorSystem
from retinue.agent.agent import BaseAgent
from retinue.agent.config import AgentConfig
from retinue.agent.human_proxy import HumanProxy
from retinue.agent.messages import AgentMessage
from retinue.llm.config import ModelConfig
from retinue.llm.prompt import PromptTemplate
from retinue.team.card import AgentCard
from retinue.team.orchestrator import Orchestrator
from retinue.team.subscriber import EventSubscriber

REQUEST = "Plan a small command-line tool that renames photos by date."


class Printer(EventSubscriber):
    """Prints every delivered message as one line."""

    def __init__(self, out: TextIO) -> None:
        self.out = out

    def on_message(self, message: Message) -> None:
        if isinstance(message, SentMessage) and isinstance(message.message, AgentMessage):
            sent = message.message
            sender = sent.sender.name if sent.sender else "outside"
            recipient = sent.recipient.name if sent.recipient else "?"
            first, *rest = sent.content.splitlines() or [""]
            print(f"{sender:>11} -> {recipient:<11} [{sent.type}] {first}", file=self.out)
            for line in rest:
                print(f"{'':>26}{line}", file=self.out)
        elif isinstance(message, EventMessage) and type(message.event).__name__ == (
            "RoutingSkippedEvent"
        ):
            print(f"    (not delivered: {message.event})", file=self.out)


def _card(role: str, description: str, model: str, routes_to: list[str] | None = None) -> AgentCard:
    return AgentCard(
        description=description,
        skills=[role.lower()],
        agent_class=BaseAgent,
        config=AgentConfig(
            name=f"@{role}",
            role=role,
            prompt=PromptTemplate(template=f"You are the team's {role}. {description}."),
            model_cfg=ModelConfig(provider="function", model=f"retinue.cli.demo_models:{model}"),
        ),
        routes_to=routes_to or [],
    )


def run_demo(out: TextIO, timeout: float = 30.0) -> dict[str, Any]:
    """Run the demo team to quiet and return what it did (for tests and the CLI)."""
    system = ActorSystem()
    try:
        orchestrator = system.createActor(
            Orchestrator, BaseConfig(name="@Orchestrator", role="Orchestrator")
        )
        team: Any = system.proxy_ask(orchestrator, Orchestrator)
        team.subscribe(Printer(out))
        manager = _card("Manager", "Coordinates the specialists", "manager", ["Developer", "QA"])
        team.register_agent_profiles(
            [
                manager,
                _card("Developer", "Plans and writes code", "developer"),
                _card("QA", "Finds risks and tests", "qa"),
            ]
        )
        human = team.createActor(HumanProxy, BaseConfig(name="@Human", role="Human"))
        manager_addr = team.createActor(BaseAgent, manager.get_config_copy())
        print("retinue demo: a Manager hires a Developer and QA (scripted models)\n", file=out)
        system.proxy_ask(human, HumanProxy).send(manager_addr, AgentMessage(content=REQUEST))
        system.wait_idle(timeout)
        print("\n@Human runs /team_members on @Manager:", file=out)
        system.proxy_ask(human, HumanProxy).send(
            manager_addr, AgentMessage(content="/team_members")
        )
        system.wait_idle(timeout)
        usage = system.proxy_ask(manager_addr, BaseAgent).get_usage_summary()
        members = [m.name for m in team.get_team_members()]
        print(
            f"\nteam: {', '.join(members)}; the manager ran {usage.runs} turns "
            f"with {usage.requests} model requests",
            file=out,
        )
        return {"members": members, "manager_runs": usage.runs}
    finally:
        system.shutdown(timeout=10)
