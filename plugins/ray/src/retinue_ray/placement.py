"""What placing and starting an actor take, as plain tuples that travel between hosts.

A host asks the driver where a new actor starts (`Placement`, answered by `Node.choose`)
and hands the admitted actor to the host chosen (`StartSpec`, run by `Node.start_here`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from retinue import ActorAddress

if TYPE_CHECKING:
    from pydantic_ai.models import Model
    from retinue import BaseConfig, Resumption


class Placement(NamedTuple):
    """What deciding where a new actor starts takes; sent to the driver as a plain tuple."""

    actor_class: type[Any]
    config: BaseConfig
    orchestrator: ActorAddress | None
    parent: ActorAddress | None


class StartSpec(NamedTuple):
    """What starting an admitted actor takes, here or on another host."""

    actor_class: type[Any]
    config: BaseConfig
    address: ActorAddress
    orchestrator: ActorAddress | None
    parent: ActorAddress | None
    resumption: Resumption | None
    model: Model | None
