"""The one error the planning board speaks in."""

from __future__ import annotations


class PlanningError(ValueError):
    """A change or a question the board refuses, with the reason in one sentence.

    The model's tools turn it into a retry it can act on; commands raise it, and the
    command registry answers the operator with it.
    """
