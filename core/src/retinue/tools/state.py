"""`ToolState`: the tools layer's slot in an agent's state.

It holds what the context-update engine needs between runs: the number of the last block
delivered and the state each provider had when it was last delivered (the baselines). It is
a cache, never a record: the message history is the record, and the engine reconciles this
slot against it before every use, so a lost or stale slot costs at most one full snapshot.

Keyed items are held as `FrozenMap`s: a checkpoint of the slot shares them instead of
copying, and comparing it with the last checkpoint is one identity check per provider.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from retinue.frozen import FrozenMap

Snapshot = str | FrozenMap[str, str]
"""A provider's state as it was delivered: one text or keyed items (never changed later)."""


class ToolState(BaseModel):
    """Baselines and block counter, mutated in place so state checkpoints pick them up."""

    # A cache must never stop a checkpoint from loading: unknown keys from another version
    # are dropped rather than refused.
    model_config = ConfigDict(extra="ignore")

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
        """Zero everything, counter included; only for a history that was emptied too."""
        self.drop_baselines()
        self.last_block = 0
