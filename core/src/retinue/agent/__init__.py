"""The agent layer: messages, routing, hiring, the usage guard, cancellation, HumanProxy."""

from retinue.agent.agent import BaseAgent
from retinue.agent.cancel import (
    NO_RUN_IN_PROGRESS,
    Cancellation,
    MailboxCapability,
    from_operator,
    is_cancel,
    render_arrival_notice,
)
from retinue.agent.config import AgentConfig, AgentState
from retinue.agent.events import CommandsAnnouncedEvent, RoutingSkippedEvent
from retinue.agent.failures import FailureNotice, render_failure_notice
from retinue.agent.human_proxy import HumanProxy
from retinue.agent.incoming import render_incoming
from retinue.agent.messages import AgentMessage, Intent
from retinue.agent.output import REPLY_PROTOCOLS, Request, StructuredOutput, reply_protocol
from retinue.agent.routing import TeamResolver, resolve_recipient
from retinue.agent.usage_guard import (
    AgentLike,
    escalate_usage_limit,
    guard_usage_limits,
    try_conclude_without_tools,
)

__all__ = [
    "NO_RUN_IN_PROGRESS",
    "REPLY_PROTOCOLS",
    "AgentConfig",
    "AgentLike",
    "AgentMessage",
    "AgentState",
    "BaseAgent",
    "Cancellation",
    "CommandsAnnouncedEvent",
    "FailureNotice",
    "HumanProxy",
    "Intent",
    "MailboxCapability",
    "Request",
    "RoutingSkippedEvent",
    "StructuredOutput",
    "TeamResolver",
    "escalate_usage_limit",
    "from_operator",
    "guard_usage_limits",
    "is_cancel",
    "render_arrival_notice",
    "render_failure_notice",
    "render_incoming",
    "reply_protocol",
    "resolve_recipient",
    "try_conclude_without_tools",
]
