"""The agent layer: messages, routing, hiring, the usage guard, cancellation, HumanProxy."""

from retinue.agent.agent import BaseAgent
from retinue.agent.approval_policy import ApprovalRule
from retinue.agent.cancel import NO_RUN_IN_PROGRESS as NO_RUN_IN_PROGRESS
from retinue.agent.cancel import Cancellation as Cancellation
from retinue.agent.cancel import from_operator, is_cancel
from retinue.agent.cancel import render_arrival_notice as render_arrival_notice
from retinue.agent.config import AgentConfig, AgentState
from retinue.agent.events import (
    ChainMessageDroppedEvent,
    ChainMessageHeldEvent,
    ChainResumedEvent,
    ChainStoppedEvent,
    CommandsAnnouncedEvent,
    PendingCall,
    RoutingSkippedEvent,
    ToolApprovalAnsweredEvent,
    ToolApprovalAskedEvent,
    ToolApprovalHeldEvent,
)
from retinue.agent.failures import FailureNotice
from retinue.agent.failures import render_failure_notice as render_failure_notice
from retinue.agent.human_proxy import HumanProxy
from retinue.agent.incoming import render_incoming
from retinue.agent.messages import AgentMessage, Intent
from retinue.agent.output import REPLY_PROTOCOLS, Request, StructuredOutput, reply_protocol
from retinue.agent.output_checks import Outgoing
from retinue.agent.routing import TeamResolver as TeamResolver
from retinue.agent.routing import resolve_recipient
from retinue.agent.usage_guard import AgentLike as AgentLike
from retinue.agent.usage_guard import escalate_usage_limit as escalate_usage_limit
from retinue.agent.usage_guard import guard_usage_limits
from retinue.agent.usage_guard import try_conclude_without_tools as try_conclude_without_tools

__all__ = [
    "REPLY_PROTOCOLS",
    "AgentConfig",
    "AgentMessage",
    "AgentState",
    "ApprovalRule",
    "BaseAgent",
    "ChainMessageDroppedEvent",
    "ChainMessageHeldEvent",
    "ChainResumedEvent",
    "ChainStoppedEvent",
    "CommandsAnnouncedEvent",
    "FailureNotice",
    "HumanProxy",
    "Intent",
    "Outgoing",
    "PendingCall",
    "Request",
    "RoutingSkippedEvent",
    "StructuredOutput",
    "ToolApprovalAnsweredEvent",
    "ToolApprovalAskedEvent",
    "ToolApprovalHeldEvent",
    "from_operator",
    "guard_usage_limits",
    "is_cancel",
    "render_incoming",
    "reply_protocol",
    "resolve_recipient",
]
