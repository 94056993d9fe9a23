"""The token in front of a served team: every call but the agent card's needs it.

Each request needs the token printed at start, as `Authorization: Bearer TOKEN` (the card
declares that scheme; `retinue.kit.TokenGate` checks it); the card itself is public, as the
spec has it: it says how to authenticate. `--no-token` opts out on a trusted machine.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from a2a.utils.constants import AGENT_CARD_WELL_KNOWN_PATH
from retinue.kit import TokenGate, new_token

if TYPE_CHECKING:
    from starlette.types import ASGIApp

REFUSAL = "this agent needs the bearer token `retinue a2a serve` printed"

__all__ = ["bearer_gate", "new_token"]


def bearer_gate(app: ASGIApp, token: str) -> TokenGate:
    """`app` behind the token: a request without it is a 401; the agent card passes."""
    return TokenGate(app, token, refusal=REFUSAL, public={AGENT_CARD_WELL_KNOWN_PATH})
