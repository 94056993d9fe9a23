"""`PlainData`: the base of every configuration class in this layer.

Configuration is written to team files and resumed from stores, so it is plain, frozen,
serializable data. A mistake in it reads as one line per problem naming the field (see
`retinue.validation`), and a number must be finite: an infinite timeout or budget is
a mistake, never a way of saying "none" (`None` says that).
"""

from __future__ import annotations

from pydantic import ConfigDict

from retinue.validation import ConfigModel


class PlainData(ConfigModel):
    """Frozen, extra-forbidding pydantic data whose construction errors are one line each."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False, defer_build=True)
