"""`TeamHarness`: a real team on a real actor system, for tests of agents and plugins."""

from __future__ import annotations

from typing import Any

from retinue.actors.address import ActorAddress
from retinue.actors.card import AgentCard
from retinue.actors.config import BaseConfig
from retinue.actors.messages import EventMessage, Message, SentMessage
from retinue.actors.orchestrator import Orchestrator
from retinue.actors.subscriber import EventSubscriber
from retinue.actors.system import ActorSystem
from retinue.agent.human_proxy import HumanProxy
from retinue.agent.messages import AgentMessage


class Recorder(EventSubscriber):
    """Keeps every message the orchestrator records, in order."""

    def __init__(self) -> None:
        self.messages: list[Message] = []

    def on_message(self, message: Message) -> None:
        self.messages.append(message)


class TeamHarness:
    """An orchestrator, a `@Human`, and helpers to drive and read the team."""

    def __init__(self, *, plugin_manager: Any = None, ask_timeout: float = 10.0) -> None:
        self.system = ActorSystem(ask_timeout=ask_timeout, plugin_manager=plugin_manager)
        self.orchestrator = self.system.createActor(
            Orchestrator, BaseConfig(name="@Orchestrator", role="Orchestrator")
        )
        self.orchestrator_proxy: Any = self.system.proxy_ask(self.orchestrator, Orchestrator)
        self.recorder = Recorder()
        self.orchestrator_proxy.subscribe(self.recorder)
        self.human: ActorAddress = self.orchestrator_proxy.createActor(
            HumanProxy, BaseConfig(name="@Human", role="Human")
        )

    # ------------------------------------------------------------------ building
    def register(self, *cards: AgentCard) -> None:
        """Make roles hireable."""
        self.orchestrator_proxy.register_agent_profiles(list(cards))

    def add(self, card: AgentCard) -> ActorAddress:
        """Start a member from a card (registering the card too)."""
        self.register(card)
        address: ActorAddress = self.orchestrator_proxy.createActor(
            card.get_agent_class(), card.get_config_copy()
        )
        return address

    def proxy(self, address: ActorAddress) -> Any:
        """An ask proxy to call a member's public methods."""
        return self.system.proxy_ask(address)

    # ------------------------------------------------------------------ driving
    def say(self, recipient: ActorAddress, content: str, intent: str = "request") -> None:
        """The human sends a message; returns once it is in the recipient's mailbox."""
        self.system.proxy_ask(self.human).send(
            recipient, AgentMessage(content=content, type=intent)
        )

    def wait_idle(self, timeout: float = 30.0) -> None:
        """Until every mailbox is empty and no handler runs."""
        self.system.wait_idle(timeout)

    def shutdown(self, timeout: float = 10.0) -> bool:
        """Stop every actor; True when all stopped in time."""
        return self.system.shutdown(timeout)

    # ------------------------------------------------------------------ reading
    def sent(self) -> list[AgentMessage]:
        """Every `AgentMessage` delivered in the team, in the order the orchestrator saw."""
        return [
            m.message
            for m in list(self.recorder.messages)
            if isinstance(m, SentMessage) and isinstance(m.message, AgentMessage)
        ]

    def transcript(self) -> list[tuple[str, str, str, str]]:
        """(sender, recipient, intent, content) for every delivered `AgentMessage`."""
        return [
            (
                m.sender.name if m.sender else "outside",
                m.recipient.name if m.recipient else "?",
                m.type,
                m.content,
            )
            for m in self.sent()
        ]

    def received_by(self, name: str) -> list[AgentMessage]:
        """Messages delivered to the member called `name`."""
        return [m for m in self.sent() if m.recipient is not None and m.recipient.name == name]

    def events(self, kind: type[Any] | tuple[type[Any], ...] = object) -> list[Any]:
        """Published events of a kind, in order."""
        return [
            m.event
            for m in list(self.recorder.messages)
            if isinstance(m, EventMessage) and isinstance(m.event, kind)
        ]

    def of(self, kind: type[Any]) -> list[Any]:
        """Recorded runtime messages of a kind (errors, handled notices, ...)."""
        return [m for m in list(self.recorder.messages) if isinstance(m, kind)]
