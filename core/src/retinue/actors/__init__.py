"""The actor runtime: addresses, messages, actors, the system, the orchestrator."""

from retinue.actors.actor import Actor
from retinue.actors.address import ActorAddress
from retinue.actors.card import AgentCard
from retinue.actors.config import BaseConfig, BaseState
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
from retinue.actors.frozen import FrozenMap
from retinue.actors.local_team import OrchestratorTeam
from retinue.actors.mailbox import Letter, Mailbox
from retinue.actors.messages import (
    CancelMessage,
    DeadLetterEvent,
    ErrorMessage,
    EventMessage,
    HandledMessage,
    Message,
    SentMessage,
    StartFailedMessage,
    StartMessage,
    StateChangedMessage,
    StopMessage,
)
from retinue.actors.names import MAX_NAME_CHARS, check_member_name
from retinue.actors.orchestrator import Orchestrator, TeamMember
from retinue.actors.redaction import redact_credentials
from retinue.actors.runtime_api import Runtime
from retinue.actors.subscriber import EventSubscriber, MessageSink
from retinue.actors.system import ActorSystem
from retinue.actors.team import DirectoryBoard, Team, TeamDirectory
from retinue.actors.user_proxy import UserProxy

__all__ = [
    "MAX_NAME_CHARS",
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
    "CancelMessage",
    "DeadLetterEvent",
    "DirectoryBoard",
    "ErrorMessage",
    "EventMessage",
    "EventSubscriber",
    "FrozenMap",
    "HandledMessage",
    "HandlerAbortedError",
    "IdleTimeoutError",
    "Letter",
    "Mailbox",
    "Message",
    "MessageSink",
    "Orchestrator",
    "OrchestratorTeam",
    "Runtime",
    "SelfAskError",
    "SentMessage",
    "StartFailedMessage",
    "StartMessage",
    "StateChangedMessage",
    "StopMessage",
    "Team",
    "TeamDirectory",
    "TeamMember",
    "UserProxy",
    "WarningError",
    "check_member_name",
    "redact_credentials",
]
