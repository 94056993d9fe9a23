"""Memory: a ping-pong team's footprint over many hops, with a history window configured.

The two agents of the ping-pong case bounce a message for N hops in segments; after each
segment the process's RSS (after a garbage collection) and the number of objects the
collector tracks are read. With a window the histories stop growing, so both should level
off: RSS can creep while the allocator settles, but a steady climb in tracked objects per
hop is a leak. The kernel's per-agent lists are read too, to name what grows.
"""

from __future__ import annotations

import time
from typing import Any

from benchmarks.cases.pingpong import CONTEXT_LENGTH, WINDOW
from benchmarks.measure import BenchTeam, agent_card, settled_rss_kb, tracked_objects
from benchmarks.suite import Case, CaseResult, Scale, Table, Target

CHECKPOINTS: dict[str, list[int]] = {
    "full": [1000, 2500, 5000, 7500, 10000],
    "quick": [500, 1000, 2000, 3000],
    "tiny": [10, 20, 30],
}


def _inspect(team: BenchTeam, agents: list[Any]) -> dict[str, int]:
    """Sizes of the kernel's per-agent and per-team collections."""
    actors = [team.actor(a) for a in agents]
    orchestrator = team.actor(team.orchestrator)
    return {
        "history": max(len(a.react_agent.context) for a in actors),
        "usage_runs_kept": sum(
            len(a.react_agent.usage_summary(by_run=True).by_run or {}) for a in actors
        ),
        "window": len(orchestrator.get_messages()),
    }


def run(scale: Scale) -> CaseResult:
    checkpoints = CHECKPOINTS[scale]
    result = CaseResult(case="memory", scale=scale)
    team = BenchTeam()
    try:
        options: dict[str, Any] = {"window": WINDOW, "context_length": CONTEXT_LENGTH}
        ping = team.add(agent_card("Player", "bounce", name="@Ping", **options))
        pong = team.add(agent_card("Player", "bounce", name="@Pong", **options))
        team.wait_idle()
        team.say(ping, "hop 0/2")  # warm-up: first runs build each agent's pydantic-ai Agent
        team.wait_idle()
        start_rss, start_objects = settled_rss_kb(), tracked_objects()
        rows: list[tuple[int, float, int, float, dict[str, int]]] = []
        done = 0
        started = time.perf_counter()
        for checkpoint in checkpoints:
            team.say(ping, f"hop {done}/{checkpoint}")
            team.wait_idle()
            done = checkpoint
            rows.append(
                (
                    checkpoint,
                    settled_rss_kb(),
                    tracked_objects(),
                    time.perf_counter() - started,
                    _inspect(team, [ping, pong]),
                )
            )
    finally:
        team.shutdown()

    table = Table(
        f"Team memory over {checkpoints[-1]:,} hops (window of {WINDOW} messages)",
        [
            "after hops",
            "RSS MB",
            "team MB",
            "KB per 1k hops since last",
            "tracked objects",
            "objects per 1k hops since last",
            "history msgs",
            "usage runs kept",
            "orchestrator window",
        ],
    )
    previous_hops, previous_rss, previous_objects = 0, start_rss, start_objects
    for hops, rss, objects, _seconds, sizes in rows:
        per_k = 1000 / (hops - previous_hops)
        table.add(
            hops,
            rss / 1024,
            (rss - start_rss) / 1024,
            (rss - previous_rss) * per_k,
            objects,
            (objects - previous_objects) * per_k,
            sizes["history"],
            sizes["usage_runs_kept"],
            sizes["window"],
        )
        previous_hops, previous_rss, previous_objects = hops, rss, objects
    result.tables.append(table)

    half = rows[len(rows) // 2 - 1] if len(rows) > 1 else rows[0]
    last = rows[-1]
    span_k = max(1, last[0] - half[0]) / 1000
    rss_late = (last[1] - half[1]) / span_k
    objects_late = (last[2] - half[2]) / span_k
    result.metrics.update(
        {
            "start_rss_mb": start_rss / 1024,
            "end_rss_mb": last[1] / 1024,
            "team_growth_mb": (last[1] - start_rss) / 1024,
            "late_rss_kb_per_1k_hops": rss_late,
            "late_objects_per_1k_hops": objects_late,
            "usage_runs_kept": float(last[4]["usage_runs_kept"]),
            "hops_per_s": last[0] / last[3],
        }
    )
    result.targets += [
        Target(
            f"RSS growth per 1k hops, hops {half[0]:,}→{last[0]:,} (bounded: ≈0)",
            rss_late,
            100.0,
            "KB",
        ),
        Target(
            f"tracked objects per 1k hops, hops {half[0]:,}→{last[0]:,} (bounded: ≈0)",
            objects_late,
            100.0,
            "objects",
        ),
    ]
    result.notes.append(
        "RSS includes the whole process (interpreter, pydantic-ai, the model loop); 'team MB' "
        "is the growth since the team's first turn. The goals (≤100 KB and ≤100 objects per "
        "1k hops once warm) are ours: 'bounded' means the late slope is about zero."
    )
    return result


CASE = Case("memory", "RSS of a team over 10k hops with a history window", run, order=60)
