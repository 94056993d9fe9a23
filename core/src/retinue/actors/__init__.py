"""The actor runtime: addresses, messages, actors, the system, the orchestrator.

`__all__` is what this layer puts on the public face (`from retinue import ...`); a name
imported as itself (`X as X`) stays in this layer: importable from here, not from `retinue`.
"""

from retinue.actors.actor import Actor
from retinue.actors.address import ActorAddress
from retinue.actors.budget import (
    BudgetBreach,
    BudgetExhaustedEvent,
    BudgetLimitsChangedEvent,
    BudgetRaisedMessage,
    BudgetSpentMessage,
    BudgetStatus,
    Charge,
    LimitsChange,
    MemberUsage,
    TeamBudget,
    TeamUsage,
    TeamUsageLimits,
)
from retinue.actors.card import AgentCard
from retinue.actors.chains import ChainLedger, ChainStop, LoopLimits, TeamChains
from retinue.actors.cluster import Cluster
from retinue.actors.config import BaseConfig, BaseState, TeamConfig
from retinue.actors.errors import (
    ActorClassError,
    ActorError,
    ActorNotFoundError,
    AskTimeoutError,
    HandlerAbortedError,
    IdleTimeoutError,
    SelfAskError,
    WarningError,
)
from retinue.actors.lineage import TeamMember
from retinue.actors.local_budget import LocalTeamBudget
from retinue.actors.local_team import OrchestratorTeam
from retinue.actors.mailbox import Letter as Letter
from retinue.actors.mailbox import Mailbox as Mailbox
from retinue.actors.messages import (
    CancelMessage,
    DeadLetterEvent,
    ErrorMessage,
    EventMessage,
    HandledMessage,
    Message,
    ProcessedMessage,
    ReceivedMessage,
    SentMessage,
    StartFailedMessage,
    StartMessage,
    StateChangedMessage,
    StopMessage,
    StopRecursively,
)
from retinue.actors.metadata import TeamMetadata
from retinue.actors.names import MAX_NAME_CHARS as MAX_NAME_CHARS
from retinue.actors.names import check_member_name
from retinue.actors.orchestrator import Orchestrator
from retinue.actors.panels import Panel, PanelView
from retinue.actors.redaction import redact_credentials as redact_credentials
from retinue.actors.resumption import Resumption
from retinue.actors.runtime_api import Runtime
from retinue.actors.subscriber import EventSubscriber, MessageSink
from retinue.actors.system import ActorSystem
from retinue.actors.team import DirectoryBoard, Team, TeamDirectory, may_hire
from retinue.actors.turns import TurnObserver
from retinue.actors.user_proxy import UserProxy
from retinue.frozen import FrozenMap

__all__ = [
    "Actor",
    "ActorAddress",
    "ActorClassError",
    "ActorError",
    "ActorNotFoundError",
    "ActorSystem",
    "AgentCard",
    "AskTimeoutError",
    "BaseConfig",
    "BaseState",
    "BudgetBreach",
    "BudgetExhaustedEvent",
    "BudgetLimitsChangedEvent",
    "BudgetRaisedMessage",
    "BudgetSpentMessage",
    "BudgetStatus",
    "CancelMessage",
    "ChainLedger",
    "ChainStop",
    "Charge",
    "Cluster",
    "DeadLetterEvent",
    "DirectoryBoard",
    "ErrorMessage",
    "EventMessage",
    "EventSubscriber",
    "FrozenMap",
    "HandledMessage",
    "HandlerAbortedError",
    "IdleTimeoutError",
    "LimitsChange",
    "LocalTeamBudget",
    "LoopLimits",
    "MemberUsage",
    "Message",
    "MessageSink",
    "Orchestrator",
    "OrchestratorTeam",
    "Panel",
    "PanelView",
    "ProcessedMessage",
    "ReceivedMessage",
    "Resumption",
    "Runtime",
    "SelfAskError",
    "SentMessage",
    "StartFailedMessage",
    "StartMessage",
    "StateChangedMessage",
    "StopMessage",
    "StopRecursively",
    "Team",
    "TeamBudget",
    "TeamChains",
    "TeamConfig",
    "TeamDirectory",
    "TeamMember",
    "TeamMetadata",
    "TeamUsage",
    "TeamUsageLimits",
    "TurnObserver",
    "UserProxy",
    "WarningError",
    "check_member_name",
    "may_hire",
]
