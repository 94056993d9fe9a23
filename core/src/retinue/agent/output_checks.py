"""Checks on what a role sends: functions every outgoing message passes before it goes out.

A check is named in `AgentConfig.checks` by its import path (`package.module:function`), so
a config stays plain data for the record and a resume; a function given in code is stored as
its path. The agent imports them when it is created (`resolve_checks`), and `OutputChecks`
runs them inside the model's run, after its output validated and before anything of it is
delivered. A complaint sends the model back with it (pydantic-ai's `ModelRetry`) while the
run's output retries remain; after that, or when a check itself breaks, the turn fails with
an `OutputCheckError` naming the check, and the failure path tells whoever waits, and the
person. Nothing of a refused output is delivered.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from pydantic_ai import ModelRetry, RunContext

from retinue.actors.address import ActorAddress
from retinue.actors.errors import describe_error, one_line
from retinue.actors.messages import Message
from retinue.agent.failures import shown_recipient
from retinue.agent.messages import Intent
from retinue.agent.output import StructuredOutput
from retinue.llm.config import parse_function_path
from retinue.llm.models import import_function
from retinue.llm.run_hooks import RunHooks, RunState
from retinue.validation import ConfigError, shown

#: The most of one complaint the model is sent back with.
COMPLAINT_LIMIT = 2000


@dataclass(frozen=True, slots=True)
class Outgoing:
    """One message a member's model wants sent, as a check sees it.

    `sender` and `role` are the member's; `incoming` is the message whose turn wrote it (the
    first, when the turn took in several answers together), None outside a turn.
    """

    recipient: str
    intent: Intent
    content: str
    sender: str
    role: str
    incoming: Message | None = None


OutputCheck = Callable[[Outgoing], str | Awaitable[str | None] | None]
"""A check: None passes the message; a string (or `ModelRetry`) says what is wrong with it."""


class OutputCheckError(RuntimeError):
    """A check refused a turn's output after its retries, or broke: the turn fails."""


def check_path(value: Any) -> str:
    """A check as stored in a config: `package.module:function`.

    A function given in code is stored by its path, which must import it back (a lambda or
    a function defined inside another cannot be recorded). A path is checked for its shape
    only: a record is read without importing anything.
    """
    if isinstance(value, str):
        parse_function_path(value)
        return value.strip()
    if not callable(value):
        raise ValueError(f"a check is a function or 'package.module:function', got {shown(value)}")
    path = f"{getattr(value, '__module__', None)}:{getattr(value, '__qualname__', None)}"
    try:
        found = import_function(path)
    except ConfigError:
        found = None
    if found is not value:
        raise ValueError(
            f"check {shown(path)} cannot be imported by its path; "
            "define it at the top level of a module"
        )
    return path


def resolve_checks(checks: Sequence[str | OutputCheck]) -> list[tuple[str, OutputCheck]]:
    """Each check's path with its function; a `ConfigError` naming the first that fails."""
    resolved: list[tuple[str, OutputCheck]] = []
    for path in map(check_path, checks):
        try:
            resolved.append((path, import_function(path)))
        except ConfigError as exc:
            raise ConfigError(f"checks: {exc}") from None
    return resolved


class CheckHost(Protocol):
    """The agent, seen from its checks."""

    myAddress: ActorAddress

    @property
    def current_message(self) -> Message | None:
        """The message whose turn is running."""
        ...


class OutputChecks(RunHooks):
    """Runs a member's checks on each whole output of its runs, before any of it is sent."""

    def __init__(self, host: CheckHost, checks: Sequence[tuple[str, OutputCheck]]) -> None:
        self._host = host
        self._checks = tuple(checks)

    async def after_output_validate(
        self, ctx: RunContext[Any], state: RunState, output: Any
    ) -> Any:
        if not isinstance(output, StructuredOutput) or not output.messages:
            return output
        me, incoming = self._host.myAddress, self._host.current_message
        refusals: list[tuple[int, str, str]] = []
        for index, request in enumerate(output.messages):
            outgoing = Outgoing(
                recipient=request.recipient,
                intent=request.message_type,
                content=request.message,
                sender=me.name,
                role=me.role,
                incoming=incoming,
            )
            for name, check in self._checks:
                complaint = await _verdict(name, check, outgoing)
                if complaint is not None:
                    refusals.append((index, name, complaint))
                    break  # one complaint per message is enough to fix it
        if not refusals:
            return output
        if state.kind == "conclusion" or ctx.retry >= ctx.max_retries:
            index, name, complaint = refusals[0]
            recipient = shown_recipient(output.messages[index].recipient)
            raise OutputCheckError(
                f"check {name} refused {me.name}'s message to {recipient}: {one_line(complaint)}"
            )
        if len(output.messages) == 1:
            raise ModelRetry(refusals[0][2])
        # Several messages: say which, and that none went out (the model sends all again).
        lines = [f"Message {index + 1}: {complaint}" for index, _, complaint in refusals]
        raise ModelRetry("\n".join(["Nothing was sent.", *lines]))


async def _verdict(name: str, check: OutputCheck, outgoing: Outgoing) -> str | None:
    """What `check` finds wrong with `outgoing`, or None; a check that breaks fails the turn.

    A plain function runs in a worker thread, so a slow one holds no other member's run.
    """
    try:
        if inspect.iscoroutinefunction(check):
            result = await check(outgoing)
        else:
            result = await asyncio.to_thread(check, outgoing)
            if inspect.isawaitable(result):
                result = await result
    except ModelRetry as retry:
        result = str(retry)
    except Exception as exc:  # a check's own bug fails the turn, naming it
        raise OutputCheckError(f"check {name} failed: {describe_error(exc)}") from exc
    if result is None:
        return None
    if not isinstance(result, str):
        raise OutputCheckError(
            f"check {name} returned a {type(result).__name__}; a check returns None or a string"
        )
    complaint = result.strip() or f"refused by {name}"
    return complaint if len(complaint) <= COMPLAINT_LIMIT else complaint[:COMPLAINT_LIMIT] + "…"
