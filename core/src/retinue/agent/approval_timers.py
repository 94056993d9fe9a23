"""Timeouts of parked calls: a timer per call whose rule sets one.

The timer does nothing itself: it posts an `ApprovalTimeout` to the waiting agent, from
code, so the call is denied (or the person reminded) on the agent's own thread, in turn
with the person's answers: whichever comes first wins, and the other is refused as stale.
A resumed team's timers go on from when each call was first asked.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import TYPE_CHECKING

from retinue.actors.address import ActorAddress
from retinue.agent.events import PendingCall
from retinue.agent.messages import AgentMessage

if TYPE_CHECKING:
    from retinue.actors.runtime_api import Runtime
    from retinue.agent.agent import BaseAgent

logger = logging.getLogger(__name__)


class ApprovalTimeout(AgentMessage):
    """A parked call's timeout passed (posted by its timer to the agent that waits)."""

    call_id: str


def start(agent: BaseAgent, calls: list[PendingCall]) -> None:
    """A timer for each call whose rule sets a timeout, kept by the agent's approvals."""
    now = time.time()
    for call in calls:
        if call.timeout is None:
            continue
        left = call.timeout - (now - (call.asked_at if call.asked_at is not None else now))
        timer = threading.Timer(
            max(0.0, left), _expired, args=(agent.system, agent.myAddress, call.id)
        )
        timer.daemon = True  # a forgotten park never keeps a program alive
        timer.name = f"retinue-approval-{agent.myAddress.name}-{call.id}"
        agent.approvals.watch(call.id, timer)
        timer.start()


def _expired(system: Runtime, address: ActorAddress, call_id: str) -> None:
    if system.shutting_down:
        return
    timeout = ApprovalTimeout(content=f"/timeout {call_id}", call_id=call_id)
    try:
        system.send(address, timeout)
    except Exception:  # noqa: BLE001 - the agent is gone: nothing waits any more
        logger.debug("approval timeout of call %s: %s is gone", call_id, address.name)
