"""`BaseAgent`: an actor whose every message runs one model loop and routes its output."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from datetime import date
from typing import Any, TypeVar

from pydantic import BaseModel
from pydantic_ai.capabilities import AbstractCapability

from retinue.actors.address import ActorAddress
from retinue.actors.local_team import OrchestratorTeam
from retinue.actors.messages import CancelMessage, EventMessage
from retinue.actors.resumption import Resumption
from retinue.actors.team import Team
from retinue.agent import routing
from retinue.agent.cancel import STOP_COMMAND, Cancellation, from_operator, is_cancel
from retinue.agent.config import AgentConfig, AgentState
from retinue.agent.events import CommandsAnnouncedEvent
from retinue.agent.failure_handling import FailureHandling
from retinue.agent.failures import FailureNotice, render_failure_notice
from retinue.agent.incoming import HOW_TO_READ_MESSAGES, render_incoming
from retinue.agent.messages import AgentMessage
from retinue.agent.output import StructuredOutput
from retinue.agent.plugin_access import plugin_catalog_for
from retinue.agent.routing_check import RecipientCheckCapability
from retinue.agent.usage_guard import guard_usage_limits
from retinue.llm.errors import RunInterruptedError
from retinue.llm.events import RunStartedEvent
from retinue.llm.models import resolve_model
from retinue.llm.react_agent import ReactAgent
from retinue.llm.usage import AgentUsageSummary
from retinue.plugins.blame import raised_by
from retinue.plugins.manager import PluginError
from retinue.tools.card import ToolCard
from retinue.tools.commands import CommandNotRecognized, CommandRegistry, shorten
from retinue.tools.context_updates import ContextUpdater
from retinue.tools.factory import ToolFactory, resolve_cards, with_default_cards

logger = logging.getLogger(__name__)

OutputT = TypeVar("OutputT", bound=BaseModel)

TEAM_PROTOCOL = (
    "You work in a team of agents and talk to it only through your output: a list of "
    "messages, each with a recipient, an intent (message_type) and the text. A recipient is "
    "'@Name' for an existing member, or a bare role name to hire a new member for that role. "
    f"An empty list sends nothing. {HOW_TO_READ_MESSAGES}"
)


class BaseAgent(FailureHandling):
    """Runs one model loop per incoming `AgentMessage` and delivers what it decides to send.

    Its failure hooks come from `FailureHandling`; where its messages go is `routing`'s.
    """

    config_class = AgentConfig

    def __init__(self, config: AgentConfig, **kwargs: Any) -> None:
        super().__init__(config, **kwargs)
        # Checked in the creator's thread, so a bad card name, the same card twice, a model
        # that cannot be built (missing SDK or key), a prompt parameter without a value or a
        # plugin failing to give its capabilities fails `createActor` itself instead of a
        # silent actor death.
        plugins = plugin_catalog_for(self.system)  # collected once per actor system
        configured = resolve_cards(config.tools, plugins.card_classes)
        self._cards = with_default_cards(configured, plugins.default_cards)
        address = self.myAddress
        self._model = resolve_model(
            config.model_cfg, agent=address.name, role=address.role, team=address.team_id
        )
        self._backstory = config.prompt.render()
        self._plugin_capabilities = plugins.capabilities(config)
        self._recipient_check = RecipientCheckCapability(self)
        self._react: ReactAgent | None = None
        self._tool_factory: ToolFactory | None = None
        self._command_registry: CommandRegistry | None = None
        self._context_updater: ContextUpdater | None = None
        #: Stops runs and announces mail; the mailbox flags cancels through it from now on.
        self.cancellation = Cancellation(self, _how_to_read_mail(self._cards))
        self._team: Team | None = None

    def default_state(self) -> AgentState:
        return AgentState()

    # ------------------------------------------------------------------ start and stop
    def on_start(self) -> None:
        factory = ToolFactory(self._cards, host=self)
        self._tool_factory = factory
        self.state.backstory = self._backstory
        self._command_registry = factory.get_command_registry(
            extra_commands=[self.compact, self.clear]
        )
        self._context_updater = factory.get_context_updater()
        plugin_capabilities = [capability for _, capability in self._plugin_capabilities]
        self._react = self._build_react_agent([*plugin_capabilities, *self.extra_capabilities()])
        self.notify_event(
            CommandsAnnouncedEvent(
                agent=self.myAddress, commands=self._command_registry.descriptors()
            )
        )

    def _build_react_agent(self, capabilities: Sequence[AbstractCapability[Any]]) -> ReactAgent:
        assert self._tool_factory is not None
        factory = self._tool_factory
        config = self.config
        return ReactAgent(
            name=self.myAddress.name,
            model_cfg=config.model_cfg,
            runtime_cfg=config.runtime_cfg,
            run_usage_limits=config.run_usage_limits,
            agent_usage_limits=config.agent_usage_limits,
            compaction_cfg=config.compaction_cfg,
            system_prompts=[self._identity, *factory.get_system_prompts()],
            tools=factory.get_tools(),
            toolsets=factory.get_toolsets(),
            capabilities=[self.cancellation.capability, self._recipient_check, *capabilities],
            event_sink=self._on_llm_event,
            model=self._model,
        )

    def _identity(self) -> str:
        parts = [f"You are {self.myAddress.name}, whose role is {self.myAddress.role}."]
        if self.state.backstory:
            parts.append(self.state.backstory)
        parts.append(TEAM_PROTOCOL)
        parts.append(f"Today is {date.today().isoformat()}.")
        return "\n\n".join(parts)

    def extra_capabilities(self) -> list[AbstractCapability[Any]]:
        """Override to run your own pydantic-ai capabilities around every model request.

        Called while the agent starts, before its runner exists: read `self.config` only.
        """
        return []

    def on_resume(self, resumption: Resumption) -> None:
        """Take back the state (tool state and card states included), then the history."""
        super().on_resume(resumption)
        self.init_llm_context(resumption.events)

    def init_llm_context(self, events: Iterable[object]) -> None:
        """Rebuild the model history and the lifetime usage counters from recorded events.

        `events` are what this agent reported, oldest first: its `EventMessage`s as the
        orchestrator recorded them, the LLM events inside them, or their stored dict form;
        an event message from another member is skipped (a later member may carry the same
        `@name`). The agent tier is recomputed from them, so an agent that had spent 180 of
        200 lifetime runs has 20 left. The context-update baselines come back with the
        state (`init_state`), and are reconciled against this history before the next run:
        when its last block is still here, that run gets only what changed meanwhile.
        """
        me = self.myAddress.agent_id
        own = [
            event
            for event in events
            if not (
                isinstance(event, EventMessage)
                and event.sender is not None
                and event.sender.agent_id != me
            )
        ]
        self.react_agent.restore_context(own)

    def on_stop(self) -> None:
        if self._tool_factory is not None:
            self._tool_factory.close()

    def on_system_shutdown(self) -> None:
        react = self._react
        if react is not None and react.current_run_id is not None:
            react.interrupt(react.current_run_id)

    @property
    def react_agent(self) -> ReactAgent:
        """The model runner, available once the agent has started."""
        if self._react is None:
            raise RuntimeError(f"{self.myAddress.name} has not started yet")
        return self._react

    @property
    def command_registry(self) -> CommandRegistry:
        """The slash commands of this agent, available once it has started."""
        if self._command_registry is None:
            raise RuntimeError(f"{self.myAddress.name} has not started yet")
        return self._command_registry

    # ------------------------------------------------------------------ cancellation
    def running_run_id(self) -> str | None:
        """The run in flight, if any."""
        return self._react.current_run_id if self._react is not None else None

    def interrupt_run(self, run_id: str) -> None:
        """End run `run_id` if it is still the one in flight; safe from any thread."""
        if self._react is not None:
            self._react.interrupt(run_id)

    def receiveMsg_CancelMessage(self, message: CancelMessage, sender: ActorAddress | None) -> None:
        logger.info("%s: cancel received with no run in progress", self.myAddress.name)

    # ------------------------------------------------------------------ the turn
    def _route_output(self, output: StructuredOutput) -> bool:
        """Deliver each outbound request; True when at least one went out (`route_output`)."""
        return routing.route_output(self, output)

    @guard_usage_limits(output_type=StructuredOutput, route=_route_output)
    def receiveMsg_AgentMessage(self, message: AgentMessage, sender: ActorAddress | None) -> None:
        if isinstance(message, FailureNotice) and self._absorbs(message):
            return
        is_command = message.content.startswith("/") and from_operator(message)
        if is_command and self._dispatch_command(message):
            return
        output = self.act(self.render_prompt(message), StructuredOutput)
        self._route_output(output)

    def render_prompt(self, message: AgentMessage) -> str:
        """The reply protocol for the message's intent, then its content fenced as its sender's.

        See `render_incoming`: no text inside the content can pass for another sender. A
        failure notice is the kernel's own words about a member, rendered as such.
        """
        if isinstance(message, FailureNotice):
            return render_failure_notice(message)
        return render_incoming(message)

    def act(self, prompt: str, output_type: type[OutputT]) -> OutputT:
        """One model run: context update, media expansion, then the loop; cancels absorbed."""
        react = self.react_agent
        self._deliver_context_update()
        content = self._expand_media(prompt)
        try:
            with self.batched_reports():  # the run's events reach the orchestrator as one batch
                return react.run_sync(content, output_type, deps=self)
        except RunInterruptedError as interruption:
            self.cancellation.purge(interruption.run_id)
            if not self.system.shutting_down:  # a shutdown is not news to the one who asked
                self.notify_human("Run interrupted.")
            try:
                return output_type()
            except Exception:
                raise interruption from None
        except Exception as exc:
            blamed = self._plugin_failure(exc)
            if blamed is None:
                raise
            raise blamed from exc

    def _plugin_failure(self, exc: Exception) -> PluginError | None:
        """The error naming the plugin whose capability raised `exc` in a run, if one did."""
        labels = {id(capability): label for label, capability in self._plugin_capabilities}
        culprit = raised_by(exc, (capability for _, capability in self._plugin_capabilities))
        if culprit is None:
            return None
        return PluginError(
            f"{labels[id(culprit)]}: its capability {type(culprit).__name__} failed in a run "
            f"of {self.myAddress.name}: {type(exc).__name__}: {exc}"
        )

    def _deliver_context_update(self) -> None:
        updater = self._context_updater
        if updater is None:
            return
        block = updater.compose(self.react_agent.context.messages)
        if block is not None:
            self.react_agent.context.record_operator_action(block)

    def _expand_media(self, prompt: str) -> Any:
        registry = self._command_registry
        if registry is None or not registry.has("_expand_media_refs"):
            return prompt
        expanded = registry.callable("_expand_media_refs")(prompt)
        return prompt if expanded == prompt else expanded

    def conclude_without_tools(self, prompt: str, output_type: type[OutputT]) -> OutputT:
        """One tool-free request that must answer now (used after a run-tier breach)."""
        self._recipient_check.stand_down()  # one request: no budget to correct recipients
        return self.react_agent.conclude_without_tools(prompt, output_type, deps=self)

    # ------------------------------------------------------------------ routing (see `routing`)
    def _locate(self, recipient: str) -> tuple[ActorAddress | None, str | None]:
        """The recipient's address, or None and why (this agent's `routes_to` included)."""
        return routing.locate_recipient(self, recipient)

    def _hireable_roles(self) -> list[str]:
        """The `routes_to` of the card this agent's role was registered with (empty: any)."""
        team = self.team
        card = team.directory.profile(self.config.role) if team is not None else None
        return list(card.routes_to) if card is not None else []

    @property
    def team(self) -> Team | None:
        """This agent's team as a typed view (no asks to read it); None outside any team."""
        if self._team is None and self.orchestrator is not None:
            self._team = OrchestratorTeam(self.system, self.orchestrator, self.myAddress)
        return self._team

    def get_team_member(self, name: str) -> ActorAddress | None:
        """The team member called `name`, or None."""
        team = self.team
        return team.directory.member(name) if team is not None else None

    def hire_member(self, role: str) -> ActorAddress:
        """Hire a new member for `role` (within `routes_to`) through a card's `hire_member`."""
        return routing.hire_for(self, role)

    def _skip(self, recipient: str, reason: str) -> None:
        """A message to `recipient` did not go out: logged, published, noted for the model."""
        routing.report_skipped(self, recipient, reason)

    async def routing_problems(self, output: StructuredOutput) -> str | None:
        """Which recipients cannot be reached, and what could be; runs on the model loop."""
        team = self.team
        if team is None:
            return None
        return routing.recipient_problems(team.directory, self.myAddress, output)

    # ------------------------------------------------------------------ people, commands, history
    def notify_human(self, text: str) -> None:
        """Tell the team's person (found by `is_user_proxy`); logged and dropped if none.

        Nobody is told while the system shuts down: a run it interrupts ends cleanly.
        """
        if self.system.shutting_down:
            logger.debug("%s: shutting down, not telling the person: %s", self.myAddress.name, text)
            return
        person = self._person()
        if person is None:
            logger.warning("%s: no person in the team to tell: %s", self.myAddress.name, text)
            return
        self.send(person, AgentMessage(content=text, type="notification"))

    def _dispatch_command(self, message: AgentMessage) -> bool:
        """Run a slash command from an operator; False when no command has that name."""
        registry = self.command_registry
        text = message.content.strip()
        command = text
        if is_cancel(message):
            if not registry.has("stop"):
                self._reply(message, self.cancellation.idle_answer)
                return True
            command = STOP_COMMAND  # words after /stop are for people, not arguments
        try:
            result = registry.dispatch(command)
        except CommandNotRecognized:
            return False
        if result is None:
            return True
        self._reply(message, result)
        who = message.sender.name if message.sender is not None else "An operator"
        # The command as typed is cut short: its record is in every later prompt.
        ran = shorten(text)
        self.react_agent.context.record_operator_action(f"[operator] {who} ran {ran}\n{result}")
        return True

    def _reply(self, message: AgentMessage, text: str) -> None:
        if message.sender is not None:
            self.send(message.sender, AgentMessage(content=text, type="notification"))

    def compact(self) -> str:
        """Shrink the conversation history to free context."""
        before = len(self.react_agent.context)
        if not self.react_agent.compact():
            return "Nothing to compact."
        return f"Context compacted: {before} messages became {len(self.react_agent.context)}."

    def clear(self) -> str:
        """Forget the conversation so far; the next turn starts from a full context update."""
        self.react_agent.clear()
        if self._context_updater is not None:
            self._context_updater.reset()
        return "Context cleared."

    def _note_for_model(self, text: str) -> None:
        """Put a line from the kernel into the history: the model reads it on its next turn."""
        if self._react is not None:
            self._react.context.record_operator_action(f"[retinue] {text}")

    def get_context_transcript(self) -> str:
        """The conversation as the model will see it next, as plain text (for people)."""
        from retinue.llm.history import render_transcript

        return render_transcript(self.react_agent.messages)

    # ------------------------------------------------------------------ usage
    def _on_llm_event(self, event: Any) -> None:
        # A run's start is news while it runs (a console shows who is working), so it does
        # not wait in the run's batch of reports.
        if isinstance(event, RunStartedEvent):
            self._tell_orchestrator(EventMessage(event=event), flush=True)
        else:
            self.notify_event(event)

    def get_usage_summary(self, by_run: bool = False) -> AgentUsageSummary:
        """Tokens, requests, runs and cost so far; `by_run=True` adds the recent runs' breakdown.

        Read from the runner's ledger, the one its lifetime budget is checked against.
        """
        react = self._react
        return react.usage_summary(by_run=by_run) if react is not None else AgentUsageSummary()


def _how_to_read_mail(cards: Sequence[ToolCard]) -> str | None:
    """The first card that lets the model read its mailbox mid-run says how to (or None)."""
    return next((card.how_to_read_mail for card in cards if card.how_to_read_mail), None)
