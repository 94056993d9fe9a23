"""`retinue teams` and `retinue log`: reading a team's record from a store.

    retinue teams                                # id, created, members, last activity, usage
    retinue log TEAM_ID                          # who -> whom (intent): text
    retinue log TEAM_ID --turns                  # and what each model was sent and said
    retinue log TEAM_ID --json                   # one JSON object a line
    retinue log TEAM_ID --follow                 # and go on as the team writes

`--store` is a SQLite path or a `postgresql://` URL; it defaults to `$RETINUE_STORE`, else
the per-user store every session is recorded into (see `retinue.cli.recording`). A reader
never creates a store, and a team id may be shortened to any prefix that names one team.
Texts are the models' and the people's words: control characters are shown escaped, so a
message cannot drive the terminal.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

from retinue.cli.model_turns import KIND as MODEL_KIND
from retinue.cli.model_turns import TurnReader, model_message
from retinue.cli.recording import add_store_argument
from retinue.console.text import clean as _clean
from retinue.store import (
    Record,
    Store,
    StoreError,
    TeamInfo,
    default_store_path,
    open_store,
    store_location,
)

#: Seconds between two looks at the store while following.
FOLLOW_INTERVAL = 0.25


def register(commands: Any) -> None:
    """Add `teams` and `log` to the `retinue` command's subcommands."""
    teams = commands.add_parser("teams", help="list the teams recorded in a store")
    add_store_argument(teams)
    teams.add_argument("--json", action="store_true", help="one JSON object per team")
    teams.set_defaults(run=_teams)

    log = commands.add_parser("log", help="print a recorded team's conversation")
    log.add_argument("team_id", metavar="TEAM_ID", help="the team's id, or a unique prefix")
    add_store_argument(log)
    log.add_argument("--json", action="store_true", help="one JSON object per line")
    log.add_argument(
        "--follow", "-f", action="store_true", help="keep printing as the team goes on"
    )
    log.add_argument(
        "--turns",
        action="store_true",
        help="also what each model was sent and answered, request by request",
    )
    log.add_argument(
        "--all",
        action="store_true",
        help="every record (events, checkpoints, starts, model turns), not only the messages",
    )
    log.set_defaults(run=_log)


def _open(where: str | None) -> Store:
    return open_store(store_location(where), create=False)


# ---------------------------------------------------------------------- teams
def _teams(args: argparse.Namespace) -> int:
    where = store_location(args.store)
    if where == str(default_store_path()) and not default_store_path().exists():
        teams: list[TeamInfo] = []  # nothing recorded yet: no store is no error here
    else:
        try:
            with _open(args.store) as store:
                teams = store.list_teams()
        except StoreError as exc:
            return _fail(exc)
    out = sys.stdout
    if args.json:
        for team in teams:
            out.write(json.dumps(_team_json(team)) + "\n")
        return 0
    if not teams:
        out.write(f"no teams in {where}\n")
        return 0
    rows = [("TEAM", "CREATED", "LAST ACTIVITY", "MEMBERS", "USAGE")]
    rows += [
        (
            team.team_id,
            _when(team.created),
            _when(team.last_activity),
            _clean(", ".join(team.members)) or "-",
            _usage(team),
        )
        for team in teams
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
        out.write("  ".join([*cells, row[4]]).rstrip() + "\n")
    return 0


def _team_json(team: TeamInfo) -> dict[str, Any]:
    return {
        "team_id": team.team_id,
        "created": _iso(team.created),
        "last_activity": _iso(team.last_activity),
        "members": list(team.members),
        "records": team.last_position,
        "requests": team.requests,
        "input_tokens": team.input_tokens,
        "output_tokens": team.output_tokens,
        "cost_usd": team.cost_usd,
        "metadata": team.metadata,
    }


def _usage(team: TeamInfo) -> str:
    if not team.requests:
        return "-"
    cost = f", ${team.cost_usd:.4f}" if team.cost_usd else ""
    return (
        f"{team.requests} requests, {team.input_tokens} in / {team.output_tokens} out tokens" + cost
    )


# ---------------------------------------------------------------------- log
def _log(args: argparse.Namespace) -> int:
    try:
        store = _open(args.store)
    except StoreError as exc:
        return _fail(exc)
    try:
        team_id = find_team(store, args.team_id)
        if args.follow:
            print(
                f"following team {team_id} in {store.describe()} (Ctrl-C to stop)",
                file=sys.stderr,
                flush=True,
            )
        shown = {"SentMessage", MODEL_KIND} if args.turns else {"SentMessage"}
        turns = TurnReader()
        forks = [] if args.json else _forks(store, team_id)
        for record in _records(store, team_id, args.follow):
            while forks and forks[0][0] < record.position:
                sys.stdout.write(_fork_line(forks.pop(0)[1]))
            if not args.all and record.kind not in shown:
                continue
            line = _json_line(record) if args.json else _text_line(record, turns)
            sys.stdout.write(line + "\n")
            sys.stdout.flush()
        for fork in forks:
            sys.stdout.write(_fork_line(fork[1]))
    except StoreError as exc:
        return _fail(exc)
    except KeyboardInterrupt:
        return 130
    finally:
        store.close()
    return 0


def find_team(store: Store, wanted: str) -> str:
    """The id of the one team `wanted` is the id or a prefix of; `StoreError` otherwise."""
    if store.team(wanted) is not None:
        return wanted
    found = [t.team_id for t in store.list_teams() if t.team_id.startswith(wanted)]
    if len(found) == 1:
        return found[0]
    if not found:
        raise StoreError(f"{store.describe()} has no team {wanted} (see `retinue teams`)")
    raise StoreError(f"{wanted} names {len(found)} teams in {store.describe()}: give more of it")


def latest_team(store: Store) -> str:
    """The id of the team the store heard from last; `StoreError` when it holds none."""
    teams = store.list_teams()
    if not teams:
        raise StoreError(f"{store.describe()} holds no recorded team yet")
    return max(teams, key=lambda team: team.last_activity or team.created).team_id


def _records(store: Store, team_id: str, follow: bool) -> Iterator[Record]:
    """The team's records in order; following, go on until the team's own stop."""
    position = 0
    while True:
        for record in store.read(team_id, after=position):
            position = record.position
            yield record
            if follow and record.kind == "StopMessage" and record.actor_id == team_id:
                return  # the orchestrator stopped: the team writes no more
        if not follow:
            return
        time.sleep(FOLLOW_INTERVAL)


def _origin(team: TeamInfo | None) -> tuple[str, int] | None:
    """(source team, position) of a fork, from its metadata (`retinue.resume.FORKED_FROM`)."""
    origin = team.metadata.get("forked_from") if team is not None else None
    if not isinstance(origin, dict):
        return None
    source, position = origin.get("team_id"), origin.get("position")
    if not isinstance(source, str) or not isinstance(position, int):
        return None
    return source, position


def _forks(store: Store, team_id: str) -> list[tuple[int, str]]:
    """The team's own origin as a first line (position 0), then the forks made of it, by
    the position they began at: (position, line)."""
    lines: list[tuple[int, str]] = []
    origin = _origin(store.team(team_id))
    if origin is not None:
        lines.append((0, f"forked from team {origin[0]} at position {origin[1]}"))
    for team in store.list_teams():
        began = _origin(team)
        if began is not None and began[0] == team_id:
            lines.append((began[1], f"forked at position {began[1]} into team {team.team_id}"))
    return sorted(lines)


def _fork_line(text: str) -> str:
    return f"⑂ {_clean(text)}\n"


def _conversation(record: Record) -> tuple[str, str] | None:
    """(intent, text) of a sent message, read from the record's data."""
    if record.kind != "SentMessage":
        return None
    try:
        data = json.loads(record.data)
    except ValueError:
        return ("?", "(unreadable record)")
    inner = data.get("message")
    if not isinstance(inner, dict):
        return ("?", "")
    if "content" in inner:
        return (str(inner.get("type", "")), str(inner.get("content", "")))
    kind = str(inner.get("$type", "message")).rpartition(":")[2]
    return (kind, "")


def _text_line(record: Record, turns: TurnReader) -> str:
    said = _conversation(record)
    who = _clean(record.sender or "outside")
    if said is not None:
        intent, text = said
        body = _clean(text).replace("\n", "\n    ")
        to = _clean(record.recipient or "?")
        return f"[{_clock(record.timestamp)}] {who} → {to} ({_clean(intent)}): {body}"
    message = model_message(record)
    if message is not None:
        turn = turns.read(record.sender or "", message)
        lines = [f"[{_clock(record.timestamp)}] {who} · {_clean(turn.heading)}"]
        for label, text in turn.parts:
            lines.append(f"    {_clean(label)}: " + _clean(text).replace("\n", "\n      "))
        return "\n".join(lines)
    return f"[{_clock(record.timestamp)}] {who} · {_clean(record.kind)}"


def _json_line(record: Record) -> str:
    said = _conversation(record)
    line: dict[str, Any] = {
        "position": record.position,
        "time": _iso(record.timestamp),
        "kind": record.kind,
        "from": record.sender,
        "to": record.recipient,
        "message_id": record.message_id,
        "parent_id": record.parent_id,
        "chain_id": record.chain_id,
    }
    if said is not None:
        line["intent"], line["text"] = said
    message = model_message(record)
    if message is not None:
        line["model_message"] = message  # pydantic-ai's JSON form, as recorded
    return json.dumps(line, ensure_ascii=False)


# ---------------------------------------------------------------------- shared
def _when(stamp: float | None) -> str:
    if stamp is None:
        return "-"
    return datetime.fromtimestamp(stamp, UTC).strftime("%Y-%m-%d %H:%M:%S")


def _clock(stamp: float) -> str:
    return datetime.fromtimestamp(stamp, UTC).strftime("%H:%M:%S")


def _iso(stamp: float | None) -> str | None:
    return None if stamp is None else datetime.fromtimestamp(stamp, UTC).isoformat()


def _fail(exc: StoreError) -> int:
    """One line on stderr naming the store and the problem; exit status 1."""
    print(f"retinue: {exc}", file=sys.stderr)
    return 1
