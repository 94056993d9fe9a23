"""Which of an agent's tools its next model request offers, as its cards decide.

Every tool schema offered is paid for on every request, so a card may hold a tool back
while the model cannot use it (`ToolCard.tool_offered`): hiring to a member whose role
names none, firing to one that has hired nobody, reading mail while none waits. The runner
asks before each model request (`RunHooks.offers`), so a tool comes and goes between the
steps of one run without rebuilding anything.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from retinue.llm.run_hooks import RunHooks
from retinue.tools.card import ToolCard, card_name

logger = logging.getLogger(__name__)


class ToolOffer(RunHooks):
    """Asks the card behind each gated tool; a card that fails is logged once and offers."""

    def __init__(self, gates: Mapping[str, ToolCard]) -> None:
        self._gates = gates
        self._failed: set[str] = set()

    @property
    def gated(self) -> frozenset[str]:
        """The tools a card offers only at times (a replay compares their definitions, not
        whether they were offered: that may follow timing, such as mail waiting)."""
        return frozenset(self._gates)

    def offers(self, tool: str) -> bool:
        card = self._gates.get(tool)
        if card is None:
            return True
        try:
            return bool(card.tool_offered(tool))
        except Exception as exc:  # noqa: BLE001 - a card's bug must not end the run: offer the tool
            if tool not in self._failed:
                self._failed.add(tool)
                logger.warning(
                    "tool card %r: tool_offered(%r) failed, so the tool is offered: %s: %s",
                    card_name(card),
                    tool,
                    type(exc).__name__,
                    exc,
                )
            return True
