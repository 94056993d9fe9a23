"""An agent's slash commands: its registry, built at start, and an operator's command run.

A message from an operator (a person, or the kernel on their behalf) that starts with `/`
is a command when the agent's registry knows it: it runs instead of a model turn, its result
goes back to whoever sent it, and the history records that it ran, so the model knows on its
next turn. `/stop` is a command too: idle, it stops what the agent handed on. Apart from
`BaseAgent`, which keeps the hooks (`_dispatch_command`, `_reply`) and the built-ins
(`compact`, `clear`, `/budget`, `/continue`); this module needs of it only `CommandHost`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from retinue.actors.messages import Message
from retinue.agent.cancel import STOP_COMMAND, Cancellation, is_cancel
from retinue.agent.messages import AgentMessage
from retinue.llm.react_agent import ReactAgent
from retinue.tools.commands import CommandNotRecognized, CommandRegistry, shorten
from retinue.tools.factory import ToolFactory


class CommandHost(Protocol):
    """What running a command needs of an agent; `BaseAgent` is one."""

    @property
    def cancellation(self) -> Cancellation: ...

    @property
    def command_registry(self) -> CommandRegistry: ...

    @property
    def react_agent(self) -> ReactAgent: ...

    def stop_downstream(self, cancel: Message, chain_id: str | None) -> bool: ...


def command_registry(
    factory: ToolFactory,
    builtins: Sequence[Callable[..., Any]],
    continue_chain: Callable[..., str],
) -> CommandRegistry:
    """Every card's commands and the kernel's `builtins`, with `/continue` unless a card has it."""
    registry = factory.get_command_registry(extra_commands=builtins)
    if not registry.has("continue"):  # a keyword: registered by name
        registry.register(continue_chain, name="continue")
    return registry


def dispatch_command(
    host: CommandHost, message: AgentMessage, reply: Callable[[AgentMessage, str], None]
) -> bool:
    """Run a slash command from an operator; False when no command has that name."""
    registry = host.command_registry
    text = message.content.strip()
    command = text
    if is_cancel(message):
        if host.stop_downstream(message, None):  # idle: stop what it handed on
            return True
        if not registry.has("stop"):
            reply(message, host.cancellation.idle_answer)
            return True
        command = STOP_COMMAND  # words after /stop are for people, not arguments
    try:
        result = registry.dispatch(command)
    except CommandNotRecognized:
        return False
    if result is None:
        return True
    reply(message, result)
    who = message.sender.name if message.sender is not None else "An operator"
    # The command as typed is cut short: its record is in every later prompt.
    ran = shorten(text)
    host.react_agent.context.record_operator_action(f"[operator] {who} ran {ran}\n{result}")
    return True
