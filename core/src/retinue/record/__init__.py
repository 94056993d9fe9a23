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
- `read_script`, `read_cassette`, `write_cassette`: what a replay plays, read from a record
  or a cassette file, and a cassette written (see docs/replay.md).

A face over the layers that hold these (`retinue.actors`, `retinue.store`, `retinue.llm`,
`retinue.replay`): each name loads on first use, so importing this package costs nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from retinue._lazy import by_name, lazy_exports

if TYPE_CHECKING:
    from retinue.llm.team_usage import charge_event as charge_event
    from retinue.llm.team_usage import team_limits_from_events as team_limits_from_events
    from retinue.llm.team_usage import team_usage_from_events as team_usage_from_events
    from retinue.replay.cassette import read_cassette as read_cassette
    from retinue.replay.cassette import write_cassette as write_cassette
    from retinue.replay.script import read_script as read_script
    from retinue.store import MemberInfo as MemberInfo
    from retinue.store import Record as Record
    from retinue.store import Store as Store
    from retinue.store import TeamInfo as TeamInfo
    from retinue.store import open_store as open_store
    from retinue.team.record_codec import RecordDecodeError as RecordDecodeError
    from retinue.team.record_codec import UnknownMessage as UnknownMessage
    from retinue.team.record_codec import UnknownPayload as UnknownPayload
    from retinue.team.record_codec import decode as decode
    from retinue.team.record_codec import encode as encode
    from retinue.team.record_codec import registry as registry
    from retinue.team.recorder import Recorder as Recorder

_LAZY = by_name(
    {
        "retinue.llm.team_usage": (
            "charge_event",
            "team_limits_from_events",
            "team_usage_from_events",
        ),
        "retinue.replay.cassette": ("read_cassette", "write_cassette"),
        "retinue.replay.script": ("read_script",),
        "retinue.store": ("MemberInfo", "Record", "Store", "TeamInfo", "open_store"),
        "retinue.team.record_codec": (
            "RecordDecodeError",
            "UnknownMessage",
            "UnknownPayload",
            "decode",
            "encode",
            "registry",
        ),
        "retinue.team.recorder": ("Recorder",),
    }
)

__all__ = list(_LAZY)  # mypy reads the `X as X` imports above

if not TYPE_CHECKING:  # hidden from type checkers, so an unknown name is an error there
    __getattr__ = lazy_exports(__name__, _LAZY)
