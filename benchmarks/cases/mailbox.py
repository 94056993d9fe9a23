"""Mailbox: what a turn costs with 300 and 10,000 messages queued behind it, against none.

@Reader's first message parks its model request; meanwhile `timed` messages and then a
backlog of N more are queued straight into its mailbox, and the orchestrator is let catch
up. Then the request is released and the agent takes the timed messages one turn each,
every one of them with the whole backlog behind it. A turn is the interval between two
successive model calls, reported two ways: the median wall time, and the CPU the whole
process (every thread) spent per turn over the timed turns, which other work on a busy
machine disturbs much less. The baseline is the same team with no backlog, measured in the
same run. Each measurement runs in a fresh interpreter, the backlogs interleaved over the
repeats so drift hits them alike.

Before the mailbox was indexed, every model request copied and scanned the whole queue for
cancels and fresh mail: a turn's cost grew with the backlog.
"""

from __future__ import annotations

import time

from retinue import AgentMessage

from benchmarks import scripts
from benchmarks.measure import BenchTeam, agent_card, intervals, median, run_child
from benchmarks.suite import Case, CaseResult, Scale, Table, Target, ratio

BACKLOGS: dict[str, tuple[int, ...]] = {
    "full": (0, 300, 10_000),
    "quick": (0, 300, 10_000),
    "tiny": (0, 30),
}
TIMED: dict[str, int] = {"full": 60, "quick": 30, "tiny": 5}
REPEATS: dict[str, int] = {"full": 5, "quick": 2, "tiny": 1}


def measure_backlog(backlog: int, timed: int) -> dict[str, float]:
    """Median ms per turn with `backlog` messages queued behind (child-interpreter entry)."""
    team = BenchTeam()
    try:
        reader = team.add(agent_card("Reader", "held_reader"))
        team.wait_idle()
        scripts.reset()
        scripts.HOLD.clear()
        scripts.HELD.clear()
        team.say(reader, "hold")
        if not scripts.HELD.wait(60):
            raise RuntimeError("the reader never parked")
        for number in range(timed + backlog):
            team.system.send(reader, AgentMessage(content=f"mail {number}"), sender=team.human)
        team.orchestrator_proxy.get_team_members()  # the orchestrator has recorded every send
        scripts.HOLD.set()
        deadline = time.monotonic() + 600
        while len(scripts.CALLS) < timed and time.monotonic() < deadline:
            time.sleep(0.01)
        calls, cpu = list(scripts.CALLS[:timed]), list(scripts.CPU_CALLS[:timed])
        if len(calls) < timed:
            raise RuntimeError(f"only {len(calls)} of {timed} turns within the deadline")
        return {
            "ms_per_turn": 1e3 * median(intervals(calls)),
            "cpu_ms_per_turn": 1e3 * (cpu[-1] - cpu[0]) / (timed - 1),
        }
    finally:
        scripts.HOLD.set()
        team.shutdown()


def run(scale: Scale) -> CaseResult:
    result = CaseResult(case="mailbox", scale=scale)
    backlogs, timed = BACKLOGS[scale], TIMED[scale]
    samples: dict[int, list[dict[str, float]]] = {n: [] for n in backlogs}
    for _ in range(REPEATS[scale]):
        for backlog in backlogs:
            samples[backlog].append(
                run_child("benchmarks.cases.mailbox:measure_backlog", backlog=backlog, timed=timed)
            )

    wall = {n: median([s["ms_per_turn"] for s in samples[n]]) for n in backlogs}
    cpu = {n: median([s["cpu_ms_per_turn"] for s in samples[n]]) for n in backlogs}
    none = backlogs[0]
    table = Table(
        f"A turn with N messages queued behind it ({timed} turns, median of "
        f"{REPEATS[scale]} interleaved runs)",
        ["messages behind", "ms/turn", "vs none", "CPU ms/turn", "CPU vs none"],
    )
    for n in backlogs:
        table.add(f"{n:,}", wall[n], ratio(wall[n] / wall[none]), cpu[n], ratio(cpu[n] / cpu[none]))
        result.metrics[f"mailbox.{n}.ms_per_turn"] = wall[n]
        result.metrics[f"mailbox.{n}.cpu_ms_per_turn"] = cpu[n]
        result.metrics[f"mailbox.{n}.cpu_ratio"] = cpu[n] / cpu[none]
    result.tables.append(table)
    largest = backlogs[-1]
    result.targets.append(
        Target(
            f"CPU per turn with {largest:,} queued behind vs none (flat)",
            cpu[largest] / cpu[none],
            1.2,
            "x",
        )
    )
    result.notes.append(
        "Instant scripted models: the figure is the framework's own cost per turn. The backlog "
        "is queued before the timed turns start and stays behind them until the team stops."
    )
    return result


CASE = Case("mailbox", "A turn's cost with a long mailbox", run, order=45)
