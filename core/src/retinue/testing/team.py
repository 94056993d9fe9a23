"""`TeamHarness`: a real team on a real actor system, for tests of agents and plugins."""

from __future__ import annotations

from typing import Any

from pydantic_ai.messages import ModelMessage

from retinue.actors.address import ActorAddress
from retinue.actors.cluster import Cluster
from retinue.actors.config import BaseConfig
from retinue.actors.messages import EventMessage, SentMessage
from retinue.actors.system import ActorSystem
from retinue.agent.human_proxy import HumanProxy
from retinue.agent.messages import AgentMessage
from retinue.llm.events import LlmEvent
from retinue.llm.model_overrides import ModelOverride, add_model_override, remove_model_override
from retinue.team.budget import BudgetStatus, TeamUsageLimits
from retinue.team.card import AgentCard
from retinue.team.chains import LoopLimits
from retinue.team.config import TeamConfig
from retinue.team.metadata import TeamMetadata
from retinue.team.orchestrator import Orchestrator
from retinue.team.subscriber import MessageLog
from retinue.testing import histories
from retinue.testing.context import context_updates
from retinue.testing.override import ModelLike, as_model


class Recorder(MessageLog):
    """Keeps every message the orchestrator records, in order, for a test to read."""


class TeamHarness:
    """An orchestrator, a `@Human`, and helpers to drive and read the team."""

    def __init__(
        self,
        *,
        plugin_manager: Any = None,
        ask_timeout: float = 10.0,
        store: Any = None,
        budget: TeamUsageLimits | None = None,
        loops: LoopLimits | None = None,
        metadata: TeamMetadata | None = None,
        cluster: Cluster | None = None,
    ) -> None:
        """`budget`: what the whole team may spend (no limit when None); `loops`: the team's
        loop-detection thresholds (the defaults, on, when None); `metadata`: the team's
        business context; `store`: where the team is recorded (a `retinue.store.Store`, a path
        or a URL); `cluster`: the hosts the team runs on beyond this process (None: all here)."""
        # Built first: a metadata template naming a missing key fails before anything starts.
        config = TeamConfig(
            name="@Orchestrator",
            role="Orchestrator",
            budget=budget or TeamUsageLimits(),
            loops=loops or LoopLimits(),
            metadata=metadata,
        )
        self.system = ActorSystem(
            ask_timeout=ask_timeout, plugin_manager=plugin_manager, store=store, cluster=cluster
        )
        self.orchestrator = self.system.createActor(Orchestrator, config)
        self.orchestrator_proxy: Any = self.system.proxy_ask(self.orchestrator, Orchestrator)
        self.recorder = Recorder()
        self.orchestrator_proxy.subscribe(self.recorder)
        self.human: ActorAddress = self.orchestrator_proxy.createActor(
            HumanProxy, BaseConfig(name="@Human", role="Human")
        )
        self._overrides: list[ModelOverride] = []

    @property
    def team_id(self) -> str:
        """The id every member of this team carries (`ActorAddress.team_id`)."""
        team_id = self.orchestrator.team_id
        assert team_id is not None, "an orchestrator always starts a team"
        return team_id

    # ------------------------------------------------------------------ building
    def register(self, *cards: AgentCard, model: ModelLike | None = None) -> None:
        """Make roles hireable; with `model`, every member of these roles plays on it.

        `model` is a pydantic-ai model object (or a `FunctionModel` function) used instead
        of the one the cards' configs name, by the members of their roles this team starts
        from now until `shutdown`; other teams are not affected.
        """
        self.orchestrator_proxy.register_agent_profiles(list(cards))
        if model is not None:
            resolved = as_model(model)
            self._overrides.extend(
                add_model_override(resolved, role=card.role, team=self.team_id) for card in cards
            )

    def add(self, card: AgentCard, *, model: ModelLike | None = None) -> ActorAddress:
        """Start a member from a card (registering the card too, with `model` as `register`)."""
        self.register(card, model=model)
        return self._start(card)

    def start(self, role: str) -> ActorAddress:
        """Start a member from the card registered for `role`, directly under the orchestrator."""
        card: AgentCard | None = self.orchestrator_proxy.get_agent_profile(role)
        if card is None:
            raise ValueError(f"no card is registered for the role {role!r}")
        return self._start(card)

    def _start(self, card: AgentCard) -> ActorAddress:
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

    def command(self, recipient: ActorAddress, text: str, timeout: float = 30.0) -> str:
        """The human sends a slash command; waits for quiet and returns the one answer.

        Fails the test unless exactly one message reached the human meanwhile: a command
        answers once, and anything else arriving would make the answer ambiguous.
        """
        before = len(self.received_by(self.human.name))
        self.say(recipient, text)
        self.wait_idle(timeout)
        answers = [m.content for m in self.received_by(self.human.name)[before:]]
        if len(answers) != 1:
            raise AssertionError(f"expected one answer to {text!r}, got {answers!r}")
        return answers[0]

    def wait_idle(self, timeout: float = 30.0) -> None:
        """Until every mailbox is empty and no handler runs."""
        self.system.wait_idle(timeout)

    def turns(self, recipient: ActorAddress, *contents: str, timeout: float = 30.0) -> None:
        """The human says each of `contents` to `recipient`, the team quiet again (within
        `timeout` seconds each) before the next: one turn and all it caused, then the next."""
        for content in contents:
            self.say(recipient, content)
            self.wait_idle(timeout)

    def shutdown(self, timeout: float = 10.0) -> bool:
        """Stop every actor and end the models given to `add`/`register`; True when in time."""
        try:
            return self.system.shutdown(timeout)
        finally:
            for override in self._overrides:
                remove_model_override(override)
            self._overrides.clear()

    # ------------------------------------------------------------------ reading
    def sent(self) -> list[AgentMessage]:
        """Every `AgentMessage` delivered in the team, in the order the orchestrator saw."""
        return [
            m.message
            for m in self.recorder.messages
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

    def budget_status(self) -> BudgetStatus:
        """The team budget's limits, tally, runs in flight and holders, as of now."""
        status: BudgetStatus = self.orchestrator_proxy.get_budget_status()
        return status

    def roster(self) -> dict[str, str]:
        """The team as the orchestrator has it now: member name → role."""
        return {m.name: m.role for m in self.orchestrator_proxy.get_team_members()}

    def events(self, kind: type[Any] | tuple[type[Any], ...] = object) -> list[Any]:
        """Published events of a kind, in order."""
        return [
            m.event
            for m in self.recorder.messages
            if isinstance(m, EventMessage) and isinstance(m.event, kind)
        ]

    def of(self, kind: type[Any]) -> list[Any]:
        """Recorded runtime messages of a kind (errors, handled notices, ...)."""
        return [m for m in self.recorder.messages if isinstance(m, kind)]

    def model_requests(self, name: str) -> list[list[ModelMessage]]:
        """What the model of the agent called `name` was shown, once per answer it gave.

        Read from the agent's published history (see `retinue.testing.histories`), so it
        works for any model and after the agent has stopped.
        """
        return histories.model_requests(self.events(LlmEvent), name)

    def context_updates(self, name: str, request: int = -1) -> list[str]:
        """The prompt texts carrying a context update in the conversation the model of the
        agent called `name` was shown in its `request`-th answer (the latest by default)."""
        return context_updates(self.model_requests(name)[request])

    def tool_results(self, name: str) -> list[str]:
        """What the function tools of the agent called `name` returned, in order."""
        return histories.tool_results(self.events(LlmEvent), name)
