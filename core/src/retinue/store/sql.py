"""The SQL both database stores share: the tables, the statements, how a batch is written.

Tables (the same in SQLite and PostgreSQL; the names start with `retinue_` so a record can
live in a database that holds other things):

- `retinue_meta(key, value)`: `application` = `retinue`, `schema_version` = `1`.
- `retinue_teams(team_id, created, metadata, last_position, last_activity, requests,
  input_tokens, output_tokens, cost_usd)`: one row per team, its summary.
- `retinue_records(<RECORD_COLUMNS>)`, primary key `(team_id, position)`: the streams;
  an index on `(team_id, kind, position)` serves reads by kind and pruning.
- `retinue_snapshots(team_id, actor_id, position)`: where each actor's latest checkpoint is.
- `retinue_members(team_id, actor_id, name, started, stopped)`: who was started, who stopped.
- `retinue_leases(<LEASE_COLUMNS>)`: who runs each team now (`retinue.store.lease`); made by
  the first lease taken, so a store written before leases existed is still schema 1.

Opening checks every table but the leases for its columns (`layout_problems`): a store
missing one is damaged, and refused before anything is written.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from typing import Any

from retinue.store.lease import Lease
from retinue.store.protocol import Batch
from retinue.store.records import RECORD_COLUMNS, record_row

META = "retinue_meta"
TABLES = (
    "retinue_meta",
    "retinue_teams",
    "retinue_records",
    "retinue_snapshots",
    "retinue_members",
)

#: `{real}`, `{text}`, `{int}` are the dialect's column types.
SCHEMA = (
    "CREATE TABLE IF NOT EXISTS retinue_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS retinue_teams ("
    " team_id TEXT PRIMARY KEY, created {real} NOT NULL, metadata TEXT NOT NULL,"
    " last_position {int} NOT NULL DEFAULT 0, last_activity {real},"
    " requests {int} NOT NULL DEFAULT 0, input_tokens {int} NOT NULL DEFAULT 0,"
    " output_tokens {int} NOT NULL DEFAULT 0, cost_usd {real} NOT NULL DEFAULT 0)",
    "CREATE TABLE IF NOT EXISTS retinue_records ("
    " team_id TEXT NOT NULL, position {int} NOT NULL, kind TEXT NOT NULL, type TEXT NOT NULL,"
    " message_id TEXT NOT NULL, actor_id TEXT, sender TEXT, recipient TEXT, parent_id TEXT,"
    " chain_id TEXT, timestamp {real} NOT NULL, requests {int} NOT NULL,"
    " input_tokens {int} NOT NULL, output_tokens {int} NOT NULL, cost_usd {real} NOT NULL,"
    " data TEXT NOT NULL, PRIMARY KEY (team_id, position)){records_suffix}",
    "CREATE INDEX IF NOT EXISTS retinue_records_kind ON retinue_records (team_id, kind, position)",
    "CREATE TABLE IF NOT EXISTS retinue_snapshots ("
    " team_id TEXT NOT NULL, actor_id TEXT NOT NULL, position {int} NOT NULL,"
    " PRIMARY KEY (team_id, actor_id))",
    "CREATE TABLE IF NOT EXISTS retinue_members ("
    " team_id TEXT NOT NULL, actor_id TEXT NOT NULL, name TEXT NOT NULL,"
    " started {int} NOT NULL, stopped {int}, PRIMARY KEY (team_id, actor_id))",
)

TEAM_COLUMNS = (
    "team_id, created, metadata, last_position, last_activity, requests, input_tokens,"
    " output_tokens, cost_usd"
)
LEASES = "retinue_leases"
#: A lease row: the team, then `Lease`'s fields in order.
LEASE_COLUMNS = ("team_id", "owner", "host", "pid", "machine", "process", "since", "expires")
CREATE_LEASES = (
    "CREATE TABLE IF NOT EXISTS retinue_leases ("
    " team_id TEXT PRIMARY KEY, owner TEXT NOT NULL, host TEXT NOT NULL, pid {int} NOT NULL,"
    " machine TEXT NOT NULL, process TEXT NOT NULL, since {real} NOT NULL,"
    " expires {real} NOT NULL)"
)

#: The columns each table needs (the leases' once made).
LAYOUT: dict[str, tuple[str, ...]] = {
    "retinue_meta": ("key", "value"),
    "retinue_teams": tuple(column.strip() for column in TEAM_COLUMNS.split(",")),
    "retinue_records": RECORD_COLUMNS,
    "retinue_snapshots": ("team_id", "actor_id", "position"),
    "retinue_members": ("team_id", "actor_id", "name", "started", "stopped"),
}


def layout_problems(found: Mapping[str, Collection[str]]) -> list[str]:
    """What is wrong with a store's tables (`found`: each table there, with its columns)."""
    problems = []
    wanted = {**LAYOUT, LEASES: LEASE_COLUMNS} if LEASES in found else LAYOUT
    for table, columns in wanted.items():
        there = found.get(table)
        if there is None:
            problems.append(f"its table {table} is missing")
            continue
        missing = [column for column in columns if column not in there]
        if missing:
            problems.append(f"its table {table} has no column {', '.join(missing)}")
    return problems


def lease_row(team_id: str, lease: Lease) -> tuple[Any, ...]:
    """The row of `LEASE_COLUMNS` a lease is written as."""
    held = (lease.owner, lease.host, lease.pid, lease.machine, lease.process)
    return (team_id, *held, lease.since, lease.expires)


def row_lease(row: Any) -> Lease:
    """A lease back from a row of `LEASE_COLUMNS` without the team id."""
    owner, host, pid, machine, process, since, expires = row
    return Lease(owner, host, int(pid), machine, process, float(since), float(expires))


_COLUMNS = ", ".join(RECORD_COLUMNS)
_R_COLUMNS = ", ".join(f"r.{c}" for c in RECORD_COLUMNS)


class Statements:
    """The statements in one dialect: `p` is its parameter marker (`?` or `%s`).

    `lock_team` ends the read of a team's last position in a batch's transaction: PostgreSQL
    locks the row (`FOR UPDATE`) so two writers of a team take turns; SQLite's `BEGIN
    IMMEDIATE` already holds the whole file. `lock_lease` does the same for a team's lease
    (a row that may not exist yet: PostgreSQL takes an advisory lock on the team's id).
    """

    def __init__(self, p: str, *, lock_team: str = "", lock_lease: str = "") -> None:
        self.p = p
        self.lock_lease = lock_lease
        lease = ", ".join(LEASE_COLUMNS[1:])
        self.select_lease = f"SELECT {lease} FROM {LEASES} WHERE team_id = {p}"
        self.upsert_lease = (
            f"INSERT INTO {LEASES} ({', '.join(LEASE_COLUMNS)})"
            f" VALUES ({', '.join([p] * len(LEASE_COLUMNS))}) ON CONFLICT (team_id) DO UPDATE"
            f" SET {', '.join(f'{c} = excluded.{c}' for c in LEASE_COLUMNS[1:])}"
        )
        self.renew_lease = f"UPDATE {LEASES} SET expires = {p} WHERE team_id = {p} AND owner = {p}"
        self.drop_lease = f"DELETE FROM {LEASES} WHERE team_id = {p} AND owner = {p}"
        self.last_position = (
            f"SELECT last_position FROM retinue_teams WHERE team_id = {p}{lock_team}"
        )
        marks = ", ".join([p] * len(RECORD_COLUMNS))
        self.insert_record = f"INSERT INTO retinue_records ({_COLUMNS}) VALUES ({marks})"
        self.upsert_snapshot = (
            "INSERT INTO retinue_snapshots (team_id, actor_id, position)"
            f" VALUES ({p}, {p}, {p}) ON CONFLICT (team_id, actor_id)"
            " DO UPDATE SET position = excluded.position"
        )
        self.upsert_member = (
            "INSERT INTO retinue_members (team_id, actor_id, name, started, stopped)"
            f" VALUES ({p}, {p}, {p}, {p}, NULL) ON CONFLICT (team_id, actor_id)"
            " DO UPDATE SET name = excluded.name, started = excluded.started, stopped = NULL"
        )
        self.stop_member = (
            f"UPDATE retinue_members SET stopped = {p} WHERE team_id = {p} AND actor_id = {p}"
        )
        self.update_team = (
            f"UPDATE retinue_teams SET last_position = {p},"
            f" last_activity = CASE WHEN last_activity IS NULL OR last_activity < {p}"
            f"  THEN {p} ELSE last_activity END,"
            f" requests = requests + {p}, input_tokens = input_tokens + {p},"
            f" output_tokens = output_tokens + {p}, cost_usd = cost_usd + {p}"
            f" WHERE team_id = {p}"
        )
        self.insert_team = (
            f"INSERT INTO retinue_teams (team_id, created, metadata) VALUES ({p}, {p}, {p})"
        )
        self.select_team = f"SELECT {TEAM_COLUMNS} FROM retinue_teams WHERE team_id = {p}"
        self.select_teams = f"SELECT {TEAM_COLUMNS} FROM retinue_teams ORDER BY created, team_id"
        self.alive_members = (
            f"SELECT name FROM retinue_members WHERE team_id = {p} AND stopped IS NULL"
            " ORDER BY started"
        )
        self.select_members = (
            "SELECT actor_id, name, started, stopped FROM retinue_members"
            f" WHERE team_id = {p} ORDER BY started"
        )
        self.select_page = (
            f"SELECT {_COLUMNS} FROM retinue_records WHERE team_id = {p} AND position > {p}"
            f" ORDER BY position LIMIT {p}"
        )
        self.select_snapshots = (
            f"SELECT {_R_COLUMNS} FROM retinue_snapshots s JOIN retinue_records r"
            " ON r.team_id = s.team_id AND r.position = s.position"
            f" WHERE s.team_id = {p} ORDER BY r.position"
        )
        self.prune_checkpoints = (
            f"DELETE FROM retinue_records WHERE team_id = {p} AND kind = 'StateChangedMessage'"
            " AND position NOT IN"
            f" (SELECT position FROM retinue_snapshots WHERE team_id = {p})"
        )
        self.delete_team = [
            f"DELETE FROM {table} WHERE team_id = {p}" for table in TABLES if table != META
        ]

    def page_with_kinds(self, count: int) -> str:
        p = self.p
        marks = ", ".join([p] * count)
        return (
            f"SELECT {_COLUMNS} FROM retinue_records WHERE team_id = {p} AND position > {p}"
            f" AND kind IN ({marks}) ORDER BY position LIMIT {p}"
        )

    def prune_telemetry(self, count: int) -> str:
        """Delete all but the newest N (the last parameter) telemetry records of a team."""
        p = self.p
        marks = ", ".join([p] * count)
        return (
            f"DELETE FROM retinue_records WHERE team_id = {p} AND kind IN ({marks})"
            " AND position NOT IN (SELECT position FROM retinue_records"
            f"  WHERE team_id = {p} AND kind IN ({marks}) ORDER BY position DESC LIMIT {p})"
        )


def batch_parameters(
    team_id: str, batch: Batch
) -> tuple[
    list[tuple[Any, ...]],
    list[tuple[Any, ...]],
    list[tuple[Any, ...]],
    list[tuple[Any, ...]],
    tuple[Any, ...],
]:
    """The rows a batch writes: records, snapshots, started, stopped, and the team update."""
    records = [record_row(r) for r in batch.records]
    snapshots = [(team_id, actor, r.position) for actor, r in batch.snapshots.items()]
    started = [(team_id, actor, name, pos) for actor, (name, pos) in batch.started.items()]
    stopped = [(pos, team_id, actor) for actor, pos in batch.stopped.items()]
    last = batch.last_activity or 0.0
    team = (
        batch.last_position,
        last,
        last,
        batch.requests,
        batch.input_tokens,
        batch.output_tokens,
        batch.cost_usd,
        team_id,
    )
    return records, snapshots, started, stopped, team


def kinds_tuple(kinds: Iterable[str] | None) -> tuple[str, ...] | None:
    return None if kinds is None else tuple(sorted(set(kinds)))
