"""`LoopLimits`: when a task chain counts as a loop, as a team configures it."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class LoopLimits(BaseModel):
    """When a task chain counts as a loop and its routing stops (on by default).

    Counted over the messages agents send each other in one chain (messages to a person
    are not hops). Progress (a content unlike the recent ones, or a run that called a tool)
    resets the repeat count only; the two caps are hard backstops for a chain that never
    settles. The defaults let a long chain with progress run: 60 hops between the same two
    agents with distinct contents pass; two agents thanking each other are stopped at the
    sixth near-identical message.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    enabled: bool = True
    max_hops: int = Field(default=200, ge=1, description="Messages between agents per chain.")
    max_pair_messages: int = Field(
        default=100, ge=1, description="Messages between the same two agents per chain."
    )
    max_repeats: int = Field(
        default=4,
        ge=1,
        description="Near-identical messages in a row between the same two agents, without "
        "progress, before the chain is stopped (the next one is refused).",
    )
    window: int = Field(
        default=8, ge=1, le=64, description="Recent messages of a chain a repeat is looked for in."
    )
    similarity: float = Field(
        default=0.8,
        gt=0.0,
        le=1.0,
        description="Share of words two contents must have in common to be near-identical.",
    )
    max_chains: int = Field(
        default=1024, ge=1, description="Chains remembered; the least recently active go first."
    )
