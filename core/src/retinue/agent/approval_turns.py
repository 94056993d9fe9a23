"""How a `BaseAgent`'s turns meet its parked run: its gate, the commands, going on, a stop.

The state and the answers are `Approvals`'; this module is what the agent does with them,
apart so the agent's module stays one screenful of turn logic: the gate its runs get, the
person's `/approve`, `/deny`, `/pending` read from their text, a `/stop` or a stopped
chain dropping the park, the parked turn handled again once answered (and the mail held
meanwhile after it), and the park brought back after a restart.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from pydantic_ai.messages import ModelRequest, ToolReturnPart
from pydantic_ai.tools import DeferredToolRequests

from retinue.actors.messages import CancelMessage, Message
from retinue.agent import approval_reviews, approval_timers
from retinue.agent.approval_policy import ApprovalGate, ApprovalPolicy
from retinue.agent.approval_timers import ApprovalTimeout
from retinue.agent.messages import AgentMessage
from retinue.llm import history
from retinue.llm.run_hooks import ToolHooks
from retinue.tools.factory import ToolFactory

if TYPE_CHECKING:
    from retinue.agent.agent import BaseAgent

_COMMAND = re.compile(r"/(approve|deny|answer|pending)(?:\s+(.*))?\Z", re.DOTALL)
_ID = re.compile(r"\d+\Z")


def gates(agent: BaseAgent, factory: ToolFactory) -> list[ToolHooks]:
    """The approval gate for the agent's runs, when its config names any tool."""
    policy = ApprovalPolicy(agent.config.approve, factory.cards)
    agent.approvals.active = policy.active or agent.config.ask_person
    agent.approvals.asks = agent.config.ask_person
    return [ApprovalGate(policy)] if policy.active else []


def run_type(agent: BaseAgent, output_type: Any) -> Any:
    """The output a run may end with: also `DeferredToolRequests` when calls may park."""
    return output_type | DeferredToolRequests if agent.approvals.active else output_type


def command(agent: BaseAgent, message: AgentMessage) -> bool:
    """Answer an approval command (or a `/stop` of a parked run); False for any other text."""
    approvals = agent.approvals
    if not approvals.active:  # `/approve` is no command here: ordinary text
        return False
    if isinstance(message, ApprovalTimeout):  # from its timer: too late when answered
        line = approvals.expire(message.call_id)
        if line is not None:
            agent.notify_human(line)
        return True
    text = message.content.strip()
    if approvals.parked and text.split(maxsplit=1)[0] == "/stop":
        _reply(agent, message, stop(agent, "stopped by /stop") or "")
        return True
    found = _COMMAND.match(text)
    if found is None:
        return False
    verb, rest = found.group(1), (found.group(2) or "").strip()
    if verb == "pending":
        answer = approvals.pending()
    else:
        first, _, after = rest.partition(" ")
        call_id, words = (first, after.strip()) if _ID.match(first) else (None, rest)
        verbs = {"approve": approvals.approve, "deny": approvals.deny, "answer": approvals.answer}
        answer = verbs[verb](call_id, words)
    _reply(agent, message, answer)
    return True


def _reply(agent: BaseAgent, message: AgentMessage, text: str) -> None:
    if message.sender is not None:
        agent.send(message.sender, AgentMessage(content=text, type="notification"))


def stop(agent: BaseAgent, why: str) -> str | None:
    """Drop the parked run (its calls never run); the line for the person, or None."""
    line = agent.approvals.drop(why)
    if line is not None:  # the parked calls get an "interrupted" result: the history stays valid
        context = agent.react_agent.context
        context.replace(history.repair(context.messages))
    return line


def cancelled(agent: BaseAgent, cancel: CancelMessage) -> bool:
    """A cancel for the parked run's chain (or any, sent by code) drops the park and tells
    the person; whether it did."""
    approvals = agent.approvals
    chain = cancel.stop_chain
    if not approvals.parked or (chain is not None and chain != approvals.chain_id):
        return False
    line = stop(agent, "its chain was stopped" if chain is not None else "its run was cancelled")
    if line is not None:
        agent.notify_human(line)
    return True


def next_turns(agent: BaseAgent) -> Iterator[Message]:
    """After a command, what to handle: the parked turn once answered (it goes on as
    itself), then the mail held meanwhile, unless the run parked again (the rest is held
    again as its turn comes)."""
    approvals = agent.approvals
    turn = approvals.take_ready()
    if turn is not None:
        yield turn
    if approvals.parked:
        return
    yield from approvals.take_held()


def park(agent: BaseAgent, requests: DeferredToolRequests) -> None:
    """The turn's run ended waiting for approvals: park it on the turn's message, ask the
    person (and any reviewer), start the calls' timeouts."""
    message = agent.current_message
    if message is None:
        raise RuntimeError(
            f"{agent.myAddress.name}: a tool call needs approval, but the run has no turn to park"
        )
    approvals = agent.approvals
    calls = approvals.calls_for(message, requests)
    unreachable = approval_reviews.assign(agent, calls)
    approvals.park(message, calls)
    if unreachable:
        agent.notify_human("\n".join(["Answer these yourself:", *unreachable]))
    approval_reviews.ask(agent, calls)
    approval_timers.start(agent, calls)


#: A reviewer's answer to a parked call (see `approval_reviews`).
reviewed = approval_reviews.verdict


def reopen(agent: BaseAgent, events: Iterable[object]) -> None:
    """After a restart: park again what the record left pending, with its history open."""
    approvals = agent.approvals
    if not approvals.restore(events):
        return
    approval_timers.start(agent, approvals.waiting)
    parked = approvals.parked_ids  # those answered before the restart too: none has run
    context = agent.react_agent.context
    messages = context.messages
    last = messages[-1] if messages else None
    if isinstance(last, ModelRequest) and all(
        isinstance(part, ToolReturnPart) and part.tool_call_id in parked for part in last.parts
    ):  # the restore's "interrupted" answers to the parked calls: they are asked again
        context.replace(messages[:-1])


def holds(agent: BaseAgent, message: Message) -> bool:
    """Whether `message` waits for the parked run (held now); commands never do.

    The parked turn's own message, delivered again after a restart, is the park itself.
    """
    approvals = agent.approvals
    if not approvals.parked:
        return False
    if not approvals.is_parked_turn(message):
        approvals.hold(message)
    return True
