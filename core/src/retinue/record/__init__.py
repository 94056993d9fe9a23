"""The team record, for code that reads one or writes one (see docs/record.md).

    from retinue.record import decode, open_store
    store = open_store("team.sqlite")
    sent = [decode(r.data) for r in store.read(team_id, kinds=["SentMessage"])]

- `Record`, `TeamInfo`, `MemberInfo`: what a store keeps; `open_store` and `Store`: where
  (the stores themselves are `retinue.store`'s).
- `encode`, `decode`: a message to the record's JSON and back. A class nothing here knows
  reads as an `UnknownMessage` (or `UnknownPayload`); data that is no message is a
  `RecordDecodeError`; a class that moved is named in `registry` under its old name.
- `Recorder`: appends a team's messages to a store as the orchestrator does (for a copy of
  a record, as retinue-web keeps for a team that records nowhere).
- `charge_event`, `team_usage_from_events`, `team_limits_from_events`: the team's usage and
  limits folded from recorded events, exactly as its budget counted them.

A face over the layers that hold these (`retinue.actors`, `retinue.store`, `retinue.llm`):
each name loads on first use, so importing this package costs nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from retinue._lazy import lazy_exports

if TYPE_CHECKING:
    from retinue.llm.team_usage import charge_event, team_limits_from_events, team_usage_from_events
    from retinue.store import MemberInfo, Record, Store, TeamInfo, open_store
    from retinue.team.record_codec import (
        RecordDecodeError,
        UnknownMessage,
        UnknownPayload,
        decode,
        encode,
        registry,
    )
    from retinue.team.recorder import Recorder

_LAZY = {
    "MemberInfo": "retinue.store",
    "Record": "retinue.store",
    "RecordDecodeError": "retinue.team.record_codec",
    "Recorder": "retinue.team.recorder",
    "Store": "retinue.store",
    "TeamInfo": "retinue.store",
    "UnknownMessage": "retinue.team.record_codec",
    "UnknownPayload": "retinue.team.record_codec",
    "charge_event": "retinue.llm.team_usage",
    "decode": "retinue.team.record_codec",
    "encode": "retinue.team.record_codec",
    "open_store": "retinue.store",
    "registry": "retinue.team.record_codec",
    "team_limits_from_events": "retinue.llm.team_usage",
    "team_usage_from_events": "retinue.llm.team_usage",
}

__all__ = [
    "MemberInfo",
    "Record",
    "RecordDecodeError",
    "Recorder",
    "Store",
    "TeamInfo",
    "UnknownMessage",
    "UnknownPayload",
    "charge_event",
    "decode",
    "encode",
    "open_store",
    "registry",
    "team_limits_from_events",
    "team_usage_from_events",
]

if not TYPE_CHECKING:  # hidden from type checkers, so an unknown name is an error there
    __getattr__ = lazy_exports(__name__, _LAZY)
