"""The record: what recording a team to a SQLite store costs per hop, and what it keeps in RAM.

Per hop: the ping-pong team (window compaction on, so every hop costs the same) bounces a
message N times without a store and with a SQLite file store (WAL, `synchronous=NORMAL`,
group commit: the defaults), interleaved; a hop is the interval between two successive
model calls, and the figure is the ratio of the medians.

RAM: the same team recorded over many hops (10,000 at full and quick scale); after each
segment the orchestrator's in-memory window, the recorder's unwritten records and the
process's RSS are read. The window must stay at its size whatever the record holds.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks import scripts
from benchmarks.cases.pingpong import CONTEXT_LENGTH, WINDOW
from benchmarks.measure import BenchTeam, agent_card, intervals, median, settled_rss_kb
from benchmarks.suite import Case, CaseResult, Scale, Table, Target, ratio

HOPS: dict[str, int] = {"full": 2000, "quick": 400, "tiny": 12}
REPEATS: dict[str, int] = {"full": 3, "quick": 2, "tiny": 1}
RAM_CHECKPOINTS: dict[str, list[int]] = {
    "full": [2500, 5000, 7500, 10000],
    "quick": [2500, 5000, 10000],
    "tiny": [10, 20],
}
#: The orchestrator's window (`TeamConfig.window_size`'s default).
ORCHESTRATOR_WINDOW = 1000


def _team(store: Any) -> tuple[BenchTeam, Any]:
    team = BenchTeam(store=store)
    options: dict[str, Any] = {"window": WINDOW, "context_length": CONTEXT_LENGTH}
    ping = team.add(agent_card("Player", "bounce", name="@Ping", **options))
    team.add(agent_card("Player", "bounce", name="@Pong", **options))
    team.wait_idle()
    team.say(ping, "hop 0/2")  # warm-up: each agent builds its pydantic-ai Agent
    team.wait_idle()
    return team, ping


def _per_hop_ms(hops: int, store: Any) -> float:
    team, ping = _team(store)
    try:
        scripts.reset()
        team.say(ping, f"hop 0/{hops}")
        team.wait_idle()
        return 1e3 * median(intervals(list(scripts.CALLS)))
    finally:
        team.shutdown()


def _records(store_path: Path) -> int:
    from retinue.store import SQLiteStore

    with SQLiteStore(store_path, create=False) as store:
        return sum(team.last_position for team in store.list_teams())


def run(scale: Scale) -> CaseResult:
    result = CaseResult(case="record", scale=scale)
    hops, repeats = HOPS[scale], REPEATS[scale]
    with tempfile.TemporaryDirectory(prefix="retinue-bench-record-") as tmp:
        root = Path(tmp)
        without: list[float] = []
        with_store: list[float] = []
        for n in range(repeats):  # interleaved, so drift hits both alike
            without.append(_per_hop_ms(hops, None))
            with_store.append(_per_hop_ms(hops, root / f"hops-{n}.sqlite"))
        recorded = _records(root / "hops-0.sqlite")
        bare, stored = median(without), median(with_store)
        table = Table(
            f"Per hop with and without the SQLite record, {hops:,} hops"
            + (f" (median of {repeats} interleaved runs)" if repeats > 1 else ""),
            ["variant", "ms/hop", "vs no store", "records per hop"],
        )
        table.add("no store", bare, ratio(1.0), None)
        sqlite = "SQLite store (WAL, group commit)"
        table.add(sqlite, stored, ratio(stored / bare), recorded / hops)
        result.tables.append(table)

        checkpoints = RAM_CHECKPOINTS[scale]
        path = root / "ram.sqlite"
        team, ping = _team(str(path))
        rows: list[tuple[int, int, int, float, float]] = []
        try:
            orchestrator = team.actor(team.orchestrator)
            start_rss = settled_rss_kb()
            done = 0
            started = time.perf_counter()
            for checkpoint in checkpoints:
                team.say(ping, f"hop {done}/{checkpoint}")
                team.wait_idle()
                done = checkpoint
                pending = sum(getattr(s, "pending", 0) for s in orchestrator._observers.sinks)
                rows.append(
                    (
                        checkpoint,
                        len(orchestrator.get_messages()),
                        pending,
                        settled_rss_kb(),
                        time.perf_counter() - started,
                    )
                )
        finally:
            team.shutdown()
        total = _records(path)
    ram = Table(
        f"The orchestrator's memory over {checkpoints[-1]:,} recorded hops",
        ["after hops", "window msgs", "unwritten records", "RSS MB", "team MB", "hops/s"],
    )
    for hops_done, window, pending, rss, seconds in rows:
        ram.add(
            hops_done, window, pending, rss / 1024, (rss - start_rss) / 1024, hops_done / seconds
        )
    result.tables.append(ram)
    last = rows[-1]
    half = rows[len(rows) // 2 - 1] if len(rows) > 1 else rows[0]
    span_k = max(1, last[0] - half[0]) / 1000
    result.metrics.update(
        {
            "no_store_ms_per_hop": bare,
            "sqlite_ms_per_hop": stored,
            "sqlite_ratio": stored / bare,
            "records_per_hop": recorded / hops,
            "window_after_last": float(last[1]),
            "unwritten_after_last": float(last[2]),
            "records_after_last": float(total),
            "late_rss_kb_per_1k_hops": (last[3] - half[3]) / span_k,
        }
    )
    result.targets += [
        Target("per hop, SQLite store vs none", stored / bare, 1.15, "x"),
        Target(
            f"orchestrator window after {last[0]:,} hops (its size: {ORCHESTRATOR_WINDOW})",
            float(last[1]),
            float(ORCHESTRATOR_WINDOW),
            "messages",
        ),
    ]
    result.notes.append(
        "The store is a SQLite file in a temporary directory (WAL, synchronous=NORMAL: a "
        "commit survives SIGKILL, not a power loss), committed in groups: once nothing more "
        "is queued at the orchestrator, or after 500 messages. RSS is the whole process; the "
        "record itself is on disk."
    )
    return result


CASE = Case("record", "Recording a team to SQLite: cost per hop, RAM window", run, order=65)
