"""`Resumption`: what an actor comes back with when its team is resumed from the record.

The runtime starts a resumed actor under its old address (same `@name`, same id, so every
address the record holds reaches it again) and, after its `on_start` and before its first
message, hands it this: the last state it checkpointed and the reports it made (its events,
oldest first). The actor's `on_resume` takes back what it needs from them; a `BaseAgent`
rebuilds its model history, its lifetime usage counters and its context-update baselines.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from retinue.actors.address import ActorAddress


@dataclass(frozen=True, slots=True)
class Resumption:
    """An actor's address, its last checkpointed state and its recorded reports."""

    address: ActorAddress
    """Who the actor was: it comes back under this name and id."""
    state: BaseModel | Mapping[str, Any] | None = None
    """Its last state checkpoint (a model, or its dumped form read from a store); None:
    it never checkpointed, and starts from its default state."""
    events: Sequence[object] = field(default_factory=tuple)
    """What it reported (its `EventMessage`s, or their events), oldest first."""
