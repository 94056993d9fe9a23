"""The team: orchestrator, roster and role cards, budget, task chains, the record.

It sits on the actor runtime (`retinue.actors`), which knows nothing of it.
"""

from retinue.team.budget import (
    BudgetBreach,
    BudgetExhaustedEvent,
    BudgetLimitsChangedEvent,
    BudgetRaisedMessage,
    BudgetSpentMessage,
    BudgetStatus,
    LimitsChange,
    TeamBudget,
    TeamUsageLimits,
)
from retinue.team.card import AgentCard
from retinue.team.chains import ChainLedger, ChainStop, LoopLimits, TeamChains
from retinue.team.config import TeamConfig
from retinue.team.lineage import TeamMember
from retinue.team.local_budget import LocalTeamBudget
from retinue.team.local_team import OrchestratorTeam
from retinue.team.metadata import TeamMetadata
from retinue.team.names import MAX_NAME_CHARS as MAX_NAME_CHARS
from retinue.team.names import check_member_name
from retinue.team.orchestrator import Orchestrator
from retinue.team.panels import Panel, PanelView
from retinue.team.subscriber import EventSubscriber, MessageSink
from retinue.team.tally import Charge, MemberUsage, TeamUsage
from retinue.team.view import DirectoryBoard, Team, TeamDirectory, may_hire

__all__ = [
    "AgentCard",
    "BudgetBreach",
    "BudgetExhaustedEvent",
    "BudgetLimitsChangedEvent",
    "BudgetRaisedMessage",
    "BudgetSpentMessage",
    "BudgetStatus",
    "ChainLedger",
    "ChainStop",
    "Charge",
    "DirectoryBoard",
    "EventSubscriber",
    "LimitsChange",
    "LocalTeamBudget",
    "LoopLimits",
    "MemberUsage",
    "MessageSink",
    "Orchestrator",
    "OrchestratorTeam",
    "Panel",
    "PanelView",
    "Team",
    "TeamBudget",
    "TeamChains",
    "TeamConfig",
    "TeamDirectory",
    "TeamMember",
    "TeamMetadata",
    "TeamUsage",
    "TeamUsageLimits",
    "check_member_name",
    "may_hire",
]
