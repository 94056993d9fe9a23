"""The actor runtime: addresses, messages, actors, the system (`retinue.team` is above it)."""

from retinue.actors.actor import Actor
from retinue.actors.address import ActorAddress
from retinue.actors.cluster import Cluster
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
from retinue.actors.redaction import redact_credentials as redact_credentials
from retinue.actors.resumption import Resumption
from retinue.actors.runtime_api import Runtime
from retinue.actors.surface import remote
from retinue.actors.system import ActorSystem
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
    "AskTimeoutError",
    "BaseConfig",
    "BaseState",
    "CancelMessage",
    "Cluster",
    "DeadLetterEvent",
    "ErrorMessage",
    "EventMessage",
    "FrozenMap",
    "HandledMessage",
    "HandlerAbortedError",
    "IdleTimeoutError",
    "Message",
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
    "TurnObserver",
    "UserProxy",
    "WarningError",
    "remote",
]
