"""Team scale: a turn's cost and an agent's memory from 1,000 to 10,000 agents in one process.

One message to each of N agents at once, three rounds, every agent answering @Human on an
instant model (no team card: `team_size` measures the card). The first round is each agent's
first turn; the figures are the later rounds' (the team's steady state), per turn: CPU time of
the whole process, wall time, and the time the cyclic garbage collector took; and the
process's resident memory per agent once every agent has taken its turns.

Two variants at each N, each in a fresh interpreter: the kernel as it runs (the collector's
young generation sized to the actors running, `retinue.actors.young_generation`) and the same
with the sizing off (`RETINUE_SCALE_GC=0`), which is how every release before it ran.
"""

from __future__ import annotations

import gc
import resource
import time
from typing import Any

from retinue import AgentMessage

from benchmarks.measure import BenchTeam, agent_card, median, run_child
from benchmarks.suite import Case, CaseResult, Scale, Table, Target, ratio

SIZES: dict[str, list[int]] = {"full": [1000, 3000, 10000], "quick": [300, 1000], "tiny": [20]}
VARIANTS = {"sized": {}, "unsized": {"RETINUE_SCALE_GC": "0"}}
LABELS = {"sized": "young generation sized", "unsized": "interpreter's default (before)"}
ROUNDS = 3


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _rss_kb() -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def measure(size: int) -> dict[str, float]:
    """Per-turn CPU, wall and collector ms over the later rounds, and KB per agent (child)."""
    collecting = [0.0, 0.0]  # total seconds, start of the current collection

    def on_gc(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            collecting[1] = time.perf_counter()
        else:
            collecting[0] += time.perf_counter() - collecting[1]

    team = BenchTeam(blocked=("team",), ask_timeout=600.0)
    try:
        worker = agent_card("Worker", "answer_human")
        team.register(worker)
        rss_before = _rss_kb()
        cpu, wall = _cpu(), time.perf_counter()
        workers = [team.add(worker) for _ in range(size)]
        team.wait_idle()
        figures = {
            "spawn_cpu_ms": 1e3 * (_cpu() - cpu) / size,
            "spawn_ms": 1e3 * (time.perf_counter() - wall) / size,
        }
        gc.callbacks.append(on_gc)
        later: list[tuple[float, float, float]] = []
        for round_ in range(ROUNDS):
            collecting[0] = 0.0
            cpu, wall = _cpu(), time.perf_counter()
            for address in workers:
                team.system.send(address, AgentMessage(content="ping"), sender=team.human)
            team.wait_idle()
            if round_:
                cpu_s, wall_s, gc_s = _cpu() - cpu, time.perf_counter() - wall, collecting[0]
                later.append((1e3 * cpu_s / size, 1e3 * wall_s / size, 1e3 * gc_s / size))
        gc.callbacks.remove(on_gc)
        figures["cpu_ms"] = median([c for c, _, _ in later])
        figures["wall_ms"] = median([w for _, w, _ in later])
        figures["gc_ms"] = median([g for _, _, g in later])
        figures["kb_per_agent"] = (_rss_kb() - rss_before) / size
        return figures
    finally:
        team.shutdown()


def run(scale: Scale) -> CaseResult:
    sizes = SIZES[scale]
    result = CaseResult(case="team_scale", scale=scale)
    runs = {
        (size, variant): run_child(
            "benchmarks.cases.team_scale:measure", environ=VARIANTS[variant], size=size
        )
        for size in sizes
        for variant in VARIANTS
    }
    table = Table(
        f"One message to each of N agents at once, rounds 2-{ROUNDS} (median), per turn",
        [
            "agents N",
            "variant",
            "CPU ms",
            "wall ms",
            "turns/s",
            "collector ms",
            "CPU vs smallest N",
            "KB per agent",
            "spawn CPU ms",
        ],
    )
    for variant in VARIANTS:
        first = runs[(sizes[0], variant)]["cpu_ms"]
        for size in sizes:
            figures = runs[(size, variant)]
            table.add(
                f"{size:,}",
                LABELS[variant],
                figures["cpu_ms"],
                figures["wall_ms"],
                1e3 / figures["wall_ms"],
                figures["gc_ms"],
                ratio(figures["cpu_ms"] / first),
                figures["kb_per_agent"],
                figures["spawn_cpu_ms"],
            )
            for key, value in figures.items():
                result.metrics[f"team_scale.{size}.{variant}.{key}"] = value
    result.tables.append(table)

    smallest, largest = sizes[0], sizes[-1]
    sized = {size: runs[(size, "sized")] for size in sizes}
    growth = sized[largest]["cpu_ms"] / sized[smallest]["cpu_ms"]
    result.metrics["team_scale.growth"] = growth
    label = f"a turn's CPU at N={largest:,} vs N={smallest:,}"
    result.targets.append(Target(label, growth, 1.1, "x"))
    result.targets.append(
        Target(
            f"memory per agent after its turns, N={largest:,}",
            sized[largest]["kb_per_agent"],
            100.0,
            "KB",
        )
    )
    result.notes.append(
        "Every agent takes its turns at once, so their runs overlap on the model loop: a "
        "turn's temporary objects live as long as the whole wave. Memory is the process's "
        "resident size grown since the team started, divided by N (one thread each: its "
        "stack is part of it)."
    )
    return result


CASE = Case("team_scale", "A turn's cost and memory from 1,000 to 10,000 agents", run, 46)
