"""`BaseAgent`: an actor whose every message runs one model loop and routes its output."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from datetime import date
from typing import Any, TypeVar

from pydantic import BaseModel
from pydantic_ai.capabilities import AbstractCapability

from retinue.actors.actor import Actor
from retinue.actors.address import ActorAddress
from retinue.actors.messages import CancelMessage, Message
from retinue.agent.cancel import MailboxCapability, is_cancel, purge_cancels
from retinue.agent.config import AgentConfig, AgentState
from retinue.agent.events import CommandsAnnouncedEvent, RoutingSkippedEvent
from retinue.agent.messages import AgentMessage
from retinue.agent.output import StructuredOutput, reply_protocol
from retinue.agent.plugin_access import plugin_manager_for
from retinue.agent.resolve import is_member_name, resolve_recipient
from retinue.agent.routing_check import RecipientCheckCapability
from retinue.agent.usage_guard import guard_usage_limits
from retinue.llm.errors import RunInterruptedError
from retinue.llm.models import get_model
from retinue.llm.react_agent import ReactAgent
from retinue.llm.usage import AgentUsageSummary, UsageLedger
from retinue.plugins.manager import (
    collect_capabilities,
    collect_card_classes,
    default_card_classes,
)
from retinue.tools.commands import CommandNotRecognized, CommandRegistry
from retinue.tools.context_updates import ContextUpdater
from retinue.tools.factory import ToolFactory, resolve_cards, with_default_cards

logger = logging.getLogger(__name__)

OutputT = TypeVar("OutputT", bound=BaseModel)

TEAM_PROTOCOL = (
    "You work in a team of agents and talk to it only through your output: a list of "
    "messages, each with a recipient, an intent (message_type) and the text. A recipient is "
    "'@Name' for an existing member, or a bare role name to hire a new member for that role. "
    "An empty list sends nothing."
)

STALE_STOP = (
    "That stop arrived when the run it could have stopped was already over (or none was "
    "running); nothing was interrupted."
)

HIRE_NEEDS_TEAM_PLUGIN = (
    "cannot hire {role!r}: no installed card provides hire_member "
    "(install the retinue-team plugin: pip install retinue-team)"
)


class BaseAgent(Actor[AgentConfig, AgentState]):
    """Runs one model loop per incoming `AgentMessage` and delivers what it decides to send."""

    def __init__(self, config: AgentConfig, **kwargs: Any) -> None:
        super().__init__(config, **kwargs)
        # Checked in the creator's thread, so a bad card name or a model that cannot be built
        # (missing SDK or key) fails `createActor` itself instead of a silent actor death.
        pm = plugin_manager_for(self.system)
        configured = resolve_cards(config.tools, collect_card_classes(pm))
        self._cards = with_default_cards(configured, default_card_classes(pm))
        get_model(config.model_cfg)
        self._cancel_stamps: dict[str, str | None] = {}
        self._usage = UsageLedger()
        self._mailbox_capability = MailboxCapability(self)
        self._recipient_check = RecipientCheckCapability(self)
        self._react: ReactAgent | None = None
        self._tool_factory: ToolFactory | None = None
        self._command_registry: CommandRegistry | None = None
        self._context_updater: ContextUpdater | None = None

    def default_state(self) -> AgentState:
        return AgentState()

    # ------------------------------------------------------------------ start and stop
    def on_start(self) -> None:
        pm = plugin_manager_for(self.system)
        factory = ToolFactory(self._cards, host=self)
        self._tool_factory = factory
        self.state.backstory = self.config.prompt.render()
        self._command_registry = factory.get_command_registry(
            extra_commands=[self.compact, self.clear]
        )
        self._context_updater = factory.get_context_updater()
        self._react = self._build_react_agent(
            [*collect_capabilities(pm, self.config), *self.extra_capabilities()]
        )
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
            capabilities=[self._mailbox_capability, self._recipient_check, *capabilities],
            event_sink=self._on_llm_event,
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
    def _accept(self, message: Any, reply_to: Any = None) -> bool:
        """Stamp a cancel with the run in flight and cut that run's model request short."""
        if not is_cancel(message):
            return super()._accept(message, reply_to)
        react = self._react
        run_id = react.current_run_id if react is not None else None
        self._cancel_stamps[message.id] = run_id
        accepted = super()._accept(message, reply_to)
        if accepted and react is not None and run_id is not None:
            react.interrupt(run_id)
        return accepted

    def take_cancel_stamp(self, message_id: str) -> str | None:
        """The run a cancel was aimed at; forgotten once taken."""
        return self._cancel_stamps.pop(message_id, None)

    def running_run_id(self) -> str | None:
        """The run in flight, if any."""
        return self._react.current_run_id if self._react is not None else None

    def answer_stale_cancel(self, message: Message) -> None:
        """A cancel for a run that had already ended: say so, interrupt nothing."""
        logger.info("%s: stale cancel %s purged", self.myAddress.name, message.id[:8])
        if isinstance(message, AgentMessage) and message.sender is not None:
            self.send(
                message.sender,
                AgentMessage(type="notification", content=STALE_STOP, parent_id=message.id),
            )

    def offers_mailbox_tool(self) -> bool:
        """Whether a card gives the model `read_mailbox`."""
        factory = self._tool_factory
        if factory is None:
            return False
        return any(
            getattr(t, "name", getattr(t, "__name__", "")) == "read_mailbox"
            for t in factory.get_tools()
        )

    def receiveMsg_CancelMessage(self, message: CancelMessage, sender: ActorAddress | None) -> None:
        self._cancel_stamps.pop(message.id, None)
        logger.info("%s: cancel received with no run in progress", self.myAddress.name)

    # ------------------------------------------------------------------ the turn
    def _route_output(self, output: StructuredOutput) -> bool:
        """Deliver each outbound request; True when at least one went out."""
        delivered = False
        for request in output.messages:
            try:
                recipient = self._resolve(request.recipient)
            except Exception as exc:
                self._skip(request.recipient, str(exc))
                continue
            if recipient is None:
                self._skip(request.recipient, "no such member in the team")
                continue
            self.send(recipient, AgentMessage(content=request.message, type=request.message_type))
            delivered = True
        return delivered

    @guard_usage_limits(output_type=StructuredOutput, route=_route_output)
    def receiveMsg_AgentMessage(self, message: AgentMessage, sender: ActorAddress | None) -> None:
        self._cancel_stamps.pop(message.id, None)  # an idle /stop: its stamp is moot
        is_command = message.content.startswith("/") and _from_operator(message)
        if is_command and self._dispatch_command(message):
            return
        output = self.act(self.render_prompt(message), StructuredOutput)
        self._route_output(output)

    def render_prompt(self, message: AgentMessage) -> str:
        """The reply protocol for the message's intent, then its raw content."""
        sender = message.sender.name if message.sender is not None else "@Operator"
        return f"{reply_protocol(message.type, sender)}\n\n{message.content}"

    def act(self, prompt: str, output_type: type[OutputT]) -> OutputT:
        """One model run: context update, media expansion, then the loop; cancels absorbed."""
        react = self.react_agent
        self._deliver_context_update()
        content = self._expand_media(prompt)
        self._mailbox_capability.start_run(m.id for m in self.peek_mailbox())
        self._recipient_check.start_run()
        try:
            with self.batched_reports():  # the run's events reach the orchestrator as one batch
                return react.run_sync(content, output_type, deps=self)
        except RunInterruptedError as interruption:
            purge_cancels(self, interruption.run_id)
            if not self.system.shutting_down:  # a shutdown is not news to the one who asked
                self.notify_human("Run interrupted.")
            try:
                return output_type()
            except Exception:
                raise interruption from None
        finally:
            self._mailbox_capability.end_run()

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
        return self.react_agent.conclude_without_tools(prompt, output_type, deps=self)

    # ------------------------------------------------------------------ routing helpers
    def _resolve(self, recipient: str) -> ActorAddress | None:
        if not is_member_name(recipient):
            allowed = self._hireable_roles()
            if allowed and recipient.strip() not in allowed:
                raise ValueError(
                    f"{self.myAddress.name} may not hire {recipient!r}; "
                    f"it may hire: {', '.join(allowed)}"
                )
        return resolve_recipient(self, recipient)

    def _hireable_roles(self) -> list[str]:
        """The `routes_to` of the card this agent's role was registered with (empty: any)."""
        if self.orchestrator is None:
            return []
        card = self.ask_orchestrator("get_agent_profile", self.config.role)
        return list(card.routes_to) if card is not None else []

    def get_team_member(self, name: str) -> ActorAddress | None:
        """The team member called `name`, or None."""
        if self.orchestrator is None:
            return None
        member: ActorAddress | None = self.ask_orchestrator("get_team_member", name.strip())
        return member

    def hire_member(self, role: str) -> ActorAddress:
        """Hire a new member for `role` through the `hire_member` command of a card."""
        registry = self.command_registry
        if not registry.has("hire_member"):
            raise RuntimeError(HIRE_NEEDS_TEAM_PLUGIN.format(role=role))
        address: ActorAddress = registry.callable("hire_member")(role.strip())
        return address

    def _skip(self, recipient: str, reason: str) -> None:
        logger.info("%s: not delivered to %s: %s", self.myAddress.name, recipient, reason)
        self.notify_event(
            RoutingSkippedEvent(agent=self.myAddress, recipient=recipient, reason=reason)
        )
        if self._react is not None:
            self._react.context.record_operator_action(
                f"[retinue] Your message to {recipient} was not delivered: {reason}."
            )

    async def routing_problems(self, output: StructuredOutput) -> str | None:
        """Which recipients cannot be reached, and what could be; runs on the model loop."""
        if self.orchestrator is None:
            return None
        directory = await self._ask_async("get_directory")
        members, profiles = directory.members, directory.profiles
        names = {m.name for m in members}
        own = next((p for p in profiles if p.role == self.config.role), None)
        roles = [p.role for p in profiles]
        if own is not None and own.routes_to:
            roles = [r for r in roles if r in own.routes_to]
        bad = []
        for request in output.messages:
            target = request.recipient.strip()
            if is_member_name(target):
                if target not in names:
                    bad.append(f"{target} is not a member")
            elif target not in roles:
                bad.append(f"{target} is not a role you can hire")
        if not bad:
            return None
        return (
            "Some recipients cannot be reached: "
            + "; ".join(bad)
            + f". Members: {', '.join(sorted(names - {self.myAddress.name})) or 'none'}."
            + f" Roles you can hire: {', '.join(roles) or 'none'}."
            + " Send your messages again with valid recipients."
        )

    async def _ask_async(self, method: str, *args: Any) -> Any:
        assert self.orchestrator is not None
        future = self.system.ask_future(self.orchestrator, method, *args)
        return await asyncio.wait_for(asyncio.wrap_future(future), self.system.ask_timeout)

    # ------------------------------------------------------------------ people and commands
    def notify_human(self, text: str) -> None:
        """Tell the team's person (found by `is_user_proxy`); logged and dropped if none."""
        proxies: list[ActorAddress] = (
            self.ask_orchestrator("get_user_proxies") if self.orchestrator is not None else []
        )
        if not proxies:
            logger.warning("%s: no person in the team to tell: %s", self.myAddress.name, text)
            return
        self.send(proxies[0], AgentMessage(content=text, type="notification"))

    def _dispatch_command(self, message: AgentMessage) -> bool:
        """Run a slash command from an operator; False when no command has that name."""
        registry = self.command_registry
        text = message.content.strip()
        if is_cancel(message) and not registry.has("stop"):
            self._reply(message, "No run is in progress; there is nothing to stop.")
            return True
        try:
            result = registry.dispatch(text)
        except CommandNotRecognized:
            return False
        if result is None:
            return True
        self._reply(message, result)
        who = message.sender.name if message.sender is not None else "An operator"
        self.react_agent.context.record_operator_action(f"[operator] {who} ran {text}\n{result}")
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

    def get_context_transcript(self) -> str:
        """The conversation as the model will see it next, as plain text (for people)."""
        from retinue.llm.history import render_transcript

        return render_transcript(self.react_agent.messages)

    # ------------------------------------------------------------------ usage
    def _on_llm_event(self, event: Any) -> None:
        self._usage.add(event)
        self.notify_event(event)

    def get_usage_summary(self, by_run: bool = False) -> AgentUsageSummary:
        """Tokens, requests, runs and cost so far; `by_run=True` adds the recent runs' breakdown."""
        return self._usage.summary(by_run=by_run)


def _from_operator(message: Message) -> bool:
    """Slash commands count only from people and from code, never from another agent."""
    return message.sender is None or message.sender.is_user_proxy
