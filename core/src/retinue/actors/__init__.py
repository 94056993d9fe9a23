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
from retinue.actors.messages import (
    CancelMessage,
    DeadLetterEvent,
    ErrorMessage,
    EventMessage,
    HandledMessage,
    Message,
    SentMessage,
    StartMessage,
    StateChangedMessage,
    StopMessage,
)
from retinue.actors.orchestrator import Orchestrator, TeamDirectory, TeamMember
from retinue.actors.subscriber import EventSubscriber, MessageSink
from retinue.actors.system import ActorSystem
from retinue.actors.user_proxy import UserProxy

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
    "CancelMessage",
    "DeadLetterEvent",
    "ErrorMessage",
    "EventMessage",
    "EventSubscriber",
    "HandledMessage",
    "HandlerAbortedError",
    "IdleTimeoutError",
    "Message",
    "MessageSink",
    "Orchestrator",
    "SelfAskError",
    "SentMessage",
    "StartMessage",
    "StateChangedMessage",
    "StopMessage",
    "TeamDirectory",
    "TeamMember",
    "UserProxy",
    "WarningError",
]
