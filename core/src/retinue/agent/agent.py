"""`BaseAgent`: an actor whose every message runs one model loop and routes its output."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import date
from typing import Any, TypeVar, cast

from pydantic import BaseModel
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.models import Model
from pydantic_ai.tools import DeferredToolRequests, DeferredToolResults

from retinue.actors.address import ActorAddress
from retinue.actors.messages import CancelMessage, EventMessage, Message
from retinue.actors.resumption import Resumption
from retinue.actors.surface import remote
from retinue.agent import approval_turns
from retinue.agent.approvals import Approvals
from retinue.agent.budget import BudgetHold
from retinue.agent.cancel import Cancellation, from_operator
from retinue.agent.chain_guard import ChainGuard
from retinue.agent.config import AgentConfig, AgentState
from retinue.agent.events import CommandsAnnouncedEvent
from retinue.agent.failure_handling import FailureHandling
from retinue.agent.failures import FailureNotice, render_failure_notice
from retinue.agent.history_commands import HistoryCommands
from retinue.agent.incoming import render_incoming
from retinue.agent.messages import AgentMessage
from retinue.agent.operator_commands import command_registry, dispatch_command
from retinue.agent.output import StructuredOutput
from retinue.agent.routing import Router
from retinue.agent.routing_check import RecipientCheck
from retinue.agent.runner_setup import RunnerSetup, own_events
from retinue.agent.tool_ledger import ToolLedger
from retinue.agent.usage_guard import guard_usage_limits
from retinue.llm.errors import RunInterruptedError, TeamBudgetExhaustedError
from retinue.llm.events import RunStartedEvent, ToolCallEvent
from retinue.llm.react_agent import ReactAgent
from retinue.llm.usage import AgentUsageSummary
from retinue.team.budget import BudgetRaisedMessage, BudgetSpentMessage
from retinue.tools.commands import CommandRegistry
from retinue.tools.context_updates import ContextUpdater
from retinue.tools.factory import ToolFactory

logger = logging.getLogger(__name__)

OutputT = TypeVar("OutputT", bound=BaseModel)
PartT = TypeVar("PartT")


class BaseAgent(HistoryCommands, FailureHandling):
    """Runs one model loop per incoming `AgentMessage` and delivers what it decides to send.

    Its failure hooks come from `FailureHandling`; where its messages go is its `Router`'s,
    what its task chains let through its `ChainGuard`'s, stopping runs its `Cancellation`'s.
    """

    config_class = AgentConfig

    def __init__(self, config: AgentConfig, **kwargs: Any) -> None:
        super().__init__(config, **kwargs)
        #: Cards, model and plugin parts, resolved here so a bad one fails `createActor`.
        self._setup = setup = RunnerSetup(self.system, config, self.myAddress, self.own_model())
        self._turn_observers = setup.turn_observers
        self._recipient_check = RecipientCheck(self)
        self._react: ReactAgent | None = None
        self._tool_factory: ToolFactory | None = None
        self._command_registry: CommandRegistry | None = None
        self._context_updater: ContextUpdater | None = None
        #: Stops runs and announces mail; the mailbox flags cancels through it from now on.
        self.cancellation = Cancellation(self, setup.how_to_read_mail)
        #: Admits turns and outputs to their task chains; holds a loop's mail for /continue.
        self.chains = ChainGuard(self)
        #: Delivers a turn's output through this agent's hooks, so an override of one wins.
        self.router = Router(self, self.chains, locate=self._locate, skip=self._skip)
        #: Holds the messages the team's budget refused; answers `/budget`.
        self.budget_hold = BudgetHold(self)
        #: Records its tool calls; after a crash, tells the model which may have run.
        self.tool_ledger = ToolLedger(self)
        #: Its run parked on calls that wait for the person's yes, and the mail held meanwhile.
        self.approvals = Approvals(self)

    def default_state(self) -> AgentState:
        return AgentState()

    # ------------------------------------------------------------------ start and stop
    def on_start(self) -> None:
        factory = ToolFactory(self._setup.cards, host=self)
        self._tool_factory = factory
        self.state.backstory = self._setup.backstory
        gates = approval_turns.gates(self, factory)  # the approval commands only with them
        builtins = [self.compact, self.clear, self.budget_hold.budget, *self.approvals.commands()]
        self._command_registry = command_registry(factory, builtins, self.chains.continue_chain)
        self._context_updater = factory.get_context_updater()
        self._react = self._setup.build(
            factory,
            identity=self._identity,
            capabilities=self.extra_capabilities(),
            run_hooks=[self.cancellation, *self._setup.checks_hook(self), self._recipient_check],
            tool_hooks=[*gates, self.tool_ledger],
            event_sink=self._on_llm_event,
            team_budget=self.budget_hold.team_budget,
        )
        self.notify_event(
            CommandsAnnouncedEvent(
                agent=self.myAddress, commands=self._command_registry.descriptors()
            )
        )

    def _identity(self) -> str:
        """The member's own part of its instructions: its backstory, who it is, the date."""
        parts = [self.state.backstory] if self.state.backstory else []
        parts.append(f"You are {self.myAddress.name}; today is {date.today().isoformat()}.")
        return "\n\n".join(parts)

    def own_model(self) -> Model | None:
        """Override to run on a model object of the class's own (a remote agent, say) instead
        of the config's; called while the agent is built: read `self.config` only."""
        return None

    def extra_capabilities(self) -> list[AbstractCapability[Any]]:
        """Override to run your own pydantic-ai capabilities around every model request.

        Called while the agent starts, before its runner exists: read `self.config` only.
        """
        return []

    def on_resume(self, resumption: Resumption) -> None:
        """Take back the state (tool state and card states included), then the history."""
        super().on_resume(resumption)
        self.init_llm_context(resumption.events)
        own = own_events(resumption.events, self.myAddress.agent_id)
        self.tool_ledger.restore(own)
        approval_turns.reopen(self, own)  # parked calls are asked again

    def init_llm_context(self, events: Iterable[object]) -> None:
        """Rebuild the model history and the lifetime usage counters from recorded events.

        `events`: this agent's `EventMessage`s, their LLM events or stored dicts, oldest
        first (another member's are skipped). The agent tier is recomputed from them; the
        context-update baselines come back with the state and are reconciled before the
        next run.
        """
        self.react_agent.restore_context(own_events(events, self.myAddress.agent_id))

    def on_stop(self) -> None:
        if self._tool_factory is not None:
            self._tool_factory.close()
        self.budget_hold.stopped()
        self.approvals.stopped()

    def on_system_shutdown(self) -> None:
        react = self._react
        if react is not None and react.current_run_id is not None:
            react.interrupt(react.current_run_id)

    @property
    @remote
    def react_agent(self) -> ReactAgent:
        """The model runner, available once the agent has started."""
        return self._started(self._react)

    @property
    @remote
    def command_registry(self) -> CommandRegistry:
        """The slash commands of this agent, available once it has started."""
        return self._started(self._command_registry)

    def _started(self, part: PartT | None) -> PartT:
        """`part`, made as the agent starts; before then, one error saying so."""
        if part is None:
            raise RuntimeError(f"{self.myAddress.name} has not started yet")
        return part

    # ------------------------------------------------------------------ cancellation
    def running_run_id(self) -> str | None:
        """The run in flight, if any."""
        return self._react.current_run_id if self._react is not None else None

    def interrupt_run(self, run_id: str) -> None:
        """End run `run_id` if it is still the one in flight; safe from any thread."""
        if self._react is not None:
            self._react.interrupt(run_id)

    def current_chain_id(self) -> str | None:
        """The task chain of the message being handled, if any; read from any thread."""
        current = self._current
        return current.chain_id if current is not None else None

    def current_turn_id(self) -> str | None:
        """The id of the message being handled, if any; read from any thread."""
        current = self._current
        return current.id if current is not None else None

    def chain_stopped(self, chain_id: str | None) -> bool:
        """Whether a cascading stop closed that chain for this agent."""
        return self.chains.is_stopped(chain_id)

    def stop_downstream(self, cancel: Message, chain_id: str | None) -> bool:
        """Stop what this agent handed on in `chain_id` (None: its latest), telling the person."""
        return self.chains.stop_downstream(cancel, chain_id)

    def drop_chain_mail(self, chain_id: str) -> None:
        """Drop this agent's queued mail of a chain a cascade stopped for it."""
        self.chains.drop_chain_mail(chain_id)

    def receiveMsg_CancelMessage(self, message: CancelMessage, sender: ActorAddress | None) -> None:
        if approval_turns.cancelled(self, message):  # a parked run dropped, the person told
            for turn in approval_turns.next_turns(self):  # held mail (a stopped chain's: dropped)
                self._handle(turn)
        if message.stop_chain is not None:  # a cascade reached this idle member
            self.drop_chain_mail(message.stop_chain)
            return
        if message.cascade and self.stop_downstream(message, None):
            return
        logger.info("%s: cancel received with no run in progress", self.myAddress.name)

    # ------------------------------------------------------------------ the turn
    def _route_output(self, output: StructuredOutput) -> bool:
        """Deliver each outbound request; True when at least one went out (`Router`)."""
        return self.router.route_output(output)

    @guard_usage_limits(output_type=StructuredOutput, route=_route_output)
    def receiveMsg_AgentMessage(self, message: AgentMessage, sender: ActorAddress | None) -> None:
        if not self.chains.admit_turn(message):  # mail of a chain stopped for this agent
            return
        if isinstance(message, FailureNotice) and self._absorbs(message):
            return
        command = message.content.startswith("/") and from_operator(message)  # reviewers: below
        if approval_turns.reviewed(self, message) or (command and self._dispatch_command(message)):
            for turn in approval_turns.next_turns(self):  # a parked run answered goes on
                self._handle(turn)
            return
        deferred = self.approvals.resolution_for(message)
        if deferred is None and approval_turns.holds(self, message):  # waits for the park
            return
        limit = 0 if deferred else self.config.answers_per_turn - 1  # a parked run: no joins
        joined = self.chains.join_answers(message, limit)
        prompt = "\n\n".join(self.render_prompt(m) for m in (message, *joined))
        self._route_output(self.act(prompt, StructuredOutput, deferred=deferred))

    def render_prompt(self, message: AgentMessage) -> str:
        """The reply protocol for the message's intent, then its content fenced as its sender's
        (`render_incoming`); a failure notice is the kernel's own words about a member."""
        if isinstance(message, FailureNotice):
            return render_failure_notice(message)
        return render_incoming(message)

    def act(
        self,
        prompt: str,
        output_type: type[OutputT],
        *,
        deferred: DeferredToolResults | None = None,
    ) -> OutputT:
        """One model run: context update, media expansion, then the loop; cancels absorbed.
        A run parked for approvals returns an empty output; `deferred` goes on from it."""
        react = self.react_agent
        self.chains.turn_started()
        notice = self.tool_ledger.notice_for(self.current_turn_id())
        if notice is not None:  # this turn was cut short by a crash before
            self._note_for_model(notice)
        if deferred is None:
            self._deliver_context_update()
        content = self._expand_media(prompt) if deferred is None else ""
        try:
            with self.batched_reports():  # the run's events reach the orchestrator as one batch
                output = react.run_sync(
                    content,
                    approval_turns.run_type(self, output_type),
                    deps=self,
                    deferred=deferred,
                )
            if not isinstance(output, DeferredToolRequests):
                return cast(OutputT, output)
            approval_turns.park(self, output)
            return output_type()
        except RunInterruptedError as interruption:
            self.cancellation.purge(interruption.run_id, self.current_turn_id())
            cancel = self.cancellation.take_interrupter()
            if not self.system.shutting_down:  # a shutdown is not news to the one who asked
                self.chains.report_interruption(cancel)
            try:
                return output_type()
            except Exception:  # noqa: BLE001 - any output_type() failure re-raises the interruption
                raise interruption from None
        except Exception as exc:
            blamed = self._setup.plugin_failure(exc)
            if blamed is None:
                raise
            raise blamed from exc

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

    # ------------------------------------------------------------------ routing (see `Router`)
    def _locate(self, recipient: str) -> tuple[ActorAddress | None, str | None]:
        """The recipient's address, or None and why (this agent's `routes_to` included)."""
        return self.router.locate(recipient)

    def _skip(self, recipient: str, reason: str, *, person_told: bool = False) -> None:
        """A message to `recipient` did not go out: logged, published, and told."""
        self.router.report_skipped(recipient, reason, person_told=person_told)

    def _hireable_roles(self) -> list[str]:
        """The `routes_to` of the card this agent's role was registered with (empty: any)."""
        team = self.team
        card = team.directory.profile(self.config.role) if team is not None else None
        return list(card.routes_to) if card is not None else []

    @remote
    def get_team_member(self, name: str) -> ActorAddress | None:
        """The team member called `name`, or None."""
        team = self.team
        return team.directory.member(name) if team is not None else None

    @remote
    def hire_member(self, role: str) -> ActorAddress:
        """Hire a new member for `role` (within `routes_to`) through a card's `hire_member`."""
        return self.router.hire_for(role)

    async def routing_problems(self, output: StructuredOutput) -> str | None:
        """Which recipients cannot be reached, and what could be; runs on the model loop."""
        return self.router.problems(output)

    # ------------------------------------------------------------------ people, commands, history
    def notify_human(self, text: str) -> None:
        """Tell the team's person (`is_user_proxy`; logged if none); nobody during a shutdown."""
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
        if approval_turns.command(self, message):  # /approve, /deny, /pending; /stop if parked
            return True
        return dispatch_command(self, message, reply=self._reply)

    def _reply(self, message: AgentMessage, text: str) -> None:
        if message.sender is not None:
            self.send(message.sender, AgentMessage(content=text, type="notification"))

    # ------------------------------------------------------------------ the team's budget
    def hold_for_budget(self, message: Message, refusal: TeamBudgetExhaustedError) -> None:
        """Keep a message the team's budget refused (the budget has the person told)."""
        self.budget_hold.hold(message, refusal)

    def receiveMsg_BudgetSpentMessage(
        self, message: BudgetSpentMessage, sender: ActorAddress | None
    ) -> None:
        """This member's run reached a limit of the team's budget first: tell the person."""
        self.budget_hold.spent(message.breaches)

    def receiveMsg_BudgetRaisedMessage(
        self, message: BudgetRaisedMessage, sender: ActorAddress | None
    ) -> None:
        """The budget was raised: each held message gets its turn, in order (or is held again)."""
        for waiting in self.budget_hold.release():
            self._handle(waiting)

    # ------------------------------------------------------------------ usage
    def _on_llm_event(self, event: Any) -> None:
        if isinstance(event, ToolCallEvent):
            self.chains.tool_called()
        # A run's start is news while it runs (who is working): not batched with the run's.
        if isinstance(event, RunStartedEvent):
            self._tell_orchestrator(EventMessage(event=event), flush=True)
        else:
            self.notify_event(event)

    @remote
    def get_usage_summary(self, by_run: bool = False) -> AgentUsageSummary:
        """Tokens, requests, runs and cost so far (the ledger its lifetime budget is checked
        against); `by_run=True` adds the recent runs' breakdown."""
        react = self._react
        return react.usage_summary(by_run=by_run) if react is not None else AgentUsageSummary()
