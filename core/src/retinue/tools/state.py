"""`ToolState`: the tools layer's slot in an agent's state.

It holds two things, both carried by the agent's state checkpoints:

- what the context-update engine needs between runs: the number of the last block delivered
  and the state each provider had when it was last delivered (the baselines). That part is
  a cache, never a record: the message history is the record, and the engine reconciles it
  against the history before every use, so a lost or stale cache costs at most one full
  snapshot;
- each bound card's own state (`cards`, see `ToolCard.card_state`): what a card must find
  again when its agent is resumed. The checkpoint is that state's record.

Keyed items are held as `FrozenMap`s: a checkpoint of the slot shares them instead of
copying, and comparing it with the last checkpoint is one identity check per provider.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from retinue.frozen import FrozenMap

Snapshot = str | FrozenMap[str, str]
"""A provider's state as it was delivered: one text or keyed items (never changed later)."""


class ToolState(BaseModel):
    """Baselines and block counter, mutated in place so state checkpoints pick them up."""

    # A cache must never stop a checkpoint from loading: unknown keys from another version
    # are dropped rather than refused.
    model_config = ConfigDict(extra="ignore", defer_build=True)

    last_block: int = 0
    """N of the last context-update block delivered; only ever grows, except on `clear()`."""
    chain_start: int = 0
    """N of the full snapshot the baselines descend from; 0 when there are no baselines.

    The baselines are only valid while every block from this one to `last_block` is still
    in the history (numbers are consecutive, since N advances once per delivered block).
    """
    baselines: dict[str, Snapshot] = Field(default_factory=dict)
    """Provider name -> its state as last delivered."""
    unavailable: list[str] = Field(default_factory=list)
    """Providers whose last delivered section said they could not be read."""
    cards: dict[str, Any] = Field(default_factory=dict)
    """Card name -> that card's own state: its model while the agent runs, the model's
    dumped form once read back from a checkpoint (the card validates it on first use)."""

    @property
    def has_baselines(self) -> bool:
        """Whether a delta can be composed (else the next block is a full snapshot)."""
        return self.chain_start > 0

    def drop_baselines(self) -> None:
        """Forget what was delivered, keeping the counter, so the next block is full."""
        self.chain_start = 0
        self.baselines.clear()
        self.unavailable.clear()

    def clear(self) -> None:
        """Zero the context-update part, counter included; only for a history that was
        emptied too. The cards' own states are not the history's and are kept."""
        self.drop_baselines()
        self.last_block = 0


def tool_state_of(state: object) -> ToolState:
    """The `tool_state` slot of an actor's state; `TypeError` when its state has none."""
    slot = getattr(state, "tool_state", None)
    if not isinstance(slot, ToolState):
        raise TypeError(
            f"{type(state).__name__} has no `tool_state: ToolState` field; context updates "
            "and cards keep their state there (an AgentState has it)"
        )
    return slot
