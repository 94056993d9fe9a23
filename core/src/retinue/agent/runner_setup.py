"""`RunnerSetup`: what an agent's model runner is built from, and the building at start.

The parts that can fail are resolved when the agent is created, in the creator's thread, so
a bad card name, the same card twice, a model that cannot be built (missing SDK or key), a
prompt parameter without a value or a plugin failing to give its capabilities fails
`createActor` itself instead of a silent actor death. The runner itself is assembled at
start, once the agent's tool factory exists (`build`). Apart from `BaseAgent` so the agent
keeps its turn; the hooks it wires in stay the agent's, so an override of one wins.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from pydantic_ai.capabilities import AbstractCapability

from retinue.actors.address import ActorAddress
from retinue.actors.messages import EventMessage
from retinue.agent.ask_person import ask_person
from retinue.agent.config import AgentConfig
from retinue.agent.incoming import TEAM_PROTOCOL
from retinue.agent.output_checks import CheckHost, OutputCheck, OutputChecks, resolve_checks
from retinue.agent.plugin_access import plugin_catalog_for
from retinue.agent.tool_offer import ToolOffer
from retinue.llm.models import resolve_model
from retinue.llm.react_agent import ReactAgent
from retinue.llm.runner_config import RunnerConfig
from retinue.plugins.blame import raised_by
from retinue.plugins.manager import PluginError
from retinue.tools.factory import ToolFactory, resolve_cards, with_default_cards

if TYPE_CHECKING:
    from pydantic_ai.models import Model

    from retinue.actors.runtime_api import Runtime
    from retinue.llm.context import EventSink
    from retinue.llm.run_hooks import RunHooks, ToolHooks
    from retinue.team.budget import TeamBudget


class RunnerSetup:
    """One agent's cards, model, backstory and plugin parts, resolved; builds its runner."""

    def __init__(
        self,
        system: Runtime,
        config: AgentConfig,
        address: ActorAddress,
        model: Model | None = None,
    ) -> None:
        plugins = plugin_catalog_for(system)  # collected once per actor system
        configured = resolve_cards(config.tools, plugins.card_classes)
        self.cards = with_default_cards(configured, plugins.default_cards)
        #: `model`, an agent class's own (`BaseAgent.own_model`), else its config's.
        self.model = model or resolve_model(
            config.model_cfg, agent=address.name, role=address.role, team=address.team_id
        )
        self.backstory = config.prompt.render()
        #: Each check on what the model sends, imported, with the path that names it.
        self.checks: list[tuple[str, OutputCheck]] = resolve_checks(config.checks)
        #: Each plugin capability with its plugin's label, to name the plugin when one fails.
        self.plugin_capabilities = plugins.capabilities(config)
        self.turn_observers = tuple(observer for _, observer in plugins.turn_observers(config))
        #: The first card that lets the model read its mailbox mid-run says how to (or None).
        self.how_to_read_mail = next(
            (card.how_to_read_mail for card in self.cards if card.how_to_read_mail), None
        )
        self._config = config
        self._address = address

    def checks_hook(self, host: CheckHost) -> list[RunHooks]:
        """The hook running the role's checks on each output (none without checks: no cost).

        First of the output's judges: a message a check refuses needs no recipient fixed.
        """
        return [OutputChecks(host, self.checks)] if self.checks else []

    def build(
        self,
        factory: ToolFactory,
        *,
        identity: Callable[[], str],
        capabilities: Sequence[AbstractCapability[Any]],
        run_hooks: Sequence[RunHooks],
        tool_hooks: Sequence[ToolHooks] = (),
        event_sink: EventSink,
        team_budget: Callable[[], TeamBudget | None],
    ) -> ReactAgent:
        """The model runner: the plugins' capabilities first, then `capabilities`."""
        config = self._config
        address = self._address
        plugin_capabilities = [capability for _, capability in self.plugin_capabilities]
        runner = RunnerConfig(
            model_cfg=config.model_cfg,
            runtime_cfg=config.runtime_cfg,
            run_usage_limits=config.run_usage_limits,
            agent_usage_limits=config.agent_usage_limits,
            compaction_cfg=config.compaction_cfg,
            # The shared part first, what differs between members and days last: providers
            # cache only an unchanged prefix, and they share it across an account.
            system_prompts=[TEAM_PROTOCOL, *factory.get_system_prompts(), identity],
            tools=[*factory.get_tools(), *([ask_person] if config.ask_person else [])],
            toolsets=factory.get_toolsets(),
            capabilities=[*plugin_capabilities, *capabilities],
            run_hooks=[*run_hooks, *_offer(factory)],
            tool_hooks=tool_hooks,
            event_sink=event_sink,
            model=self.model,
            team_budget=team_budget(),
            label=address.role,
        )
        return ReactAgent(address.name, runner)

    def plugin_failure(self, exc: Exception) -> PluginError | None:
        """The error naming the plugin whose capability raised `exc` in a run, if one did."""
        labels = {id(capability): label for label, capability in self.plugin_capabilities}
        culprit = raised_by(exc, (capability for _, capability in self.plugin_capabilities))
        if culprit is None:
            return None
        return PluginError(
            f"{labels[id(culprit)]}: its capability {type(culprit).__name__} failed in a run "
            f"of {self._address.name}: {type(exc).__name__}: {exc}"
        )


def _offer(factory: ToolFactory) -> list[ToolOffer]:
    """The hook holding tools back while their cards say so (none when no card gates any)."""
    gates = factory.get_tool_gates()
    return [ToolOffer(gates)] if gates else []


def own_events(events: Iterable[object], agent_id: str) -> list[object]:
    """The recorded events an agent reported: an event message from another member is not.

    A later member may carry the same `@name`, so the sender is told apart by its id.
    """
    return [
        event
        for event in events
        if not (
            isinstance(event, EventMessage)
            and event.sender is not None
            and event.sender.agent_id != agent_id
        )
    ]
