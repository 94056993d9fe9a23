"""Shutdown: how far past its deadline `ActorSystem.shutdown(timeout)` returns, busy or idle.

A team of N agents is stopped while every one of them is in a model request: half in a sync
model function blocked in a worker thread (no cancellation reaches it), half in an async
request that never answers. The deadline is a promise to the caller (a process ending on
SIGTERM, a test's teardown), so what counts is the time it takes to return, against the
deadline it was given; the baseline is the same team, idle, stopped with the same deadline in
the same interpreter run. The tests check that it returns without waiting for blocked work;
this case says how long that takes on this machine.
"""

from __future__ import annotations

import time

from retinue import AgentMessage
from retinue.llm.loop import get_model_loop

from benchmarks import scripts
from benchmarks.measure import BenchTeam, agent_card, median, run_child
from benchmarks.suite import Case, CaseResult, Scale, Table, Target, ratio

AGENTS: dict[str, int] = {"full": 400, "quick": 200, "tiny": 10}
REPEATS: dict[str, int] = {"full": 3, "quick": 2, "tiny": 1}
DEADLINE = 0.5


def measure_shutdown(agents: int, busy: bool) -> dict[str, float]:
    """Seconds `shutdown(DEADLINE)` took for `agents` agents (child-interpreter entry)."""
    team = BenchTeam()
    try:
        members = [
            team.add(agent_card(f"Agent{n}", "blocked_sync" if n % 2 else "parked"))
            for n in range(agents)
        ]
        team.wait_idle()
        if busy:
            scripts.GATE.clear()
            for member in members:
                team.system.send(member, AgentMessage(content="work"), sender=team.human)
            # every async request is in; sync ones as far as the worker threads go
            waiting = (agents + 1) // 2 + min(agents // 2, get_model_loop().thread_limit)
            for _ in range(waiting):
                if not scripts.BUSY.acquire(timeout=120):
                    raise RuntimeError("the team never got busy")
        started = time.perf_counter()
        team.system.shutdown(timeout=DEADLINE)
        return {"seconds": time.perf_counter() - started}
    finally:
        scripts.GATE.set()
        team.system.shutdown(timeout=60)


def run(scale: Scale) -> CaseResult:
    result = CaseResult(case="shutdown", scale=scale)
    agents = AGENTS[scale]
    seconds: dict[bool, list[float]] = {False: [], True: []}
    for _ in range(REPEATS[scale]):
        for busy in (False, True):
            figures = run_child(
                "benchmarks.cases.shutdown:measure_shutdown", agents=agents, busy=busy
            )
            seconds[busy].append(figures["seconds"])
    took = {busy: median(values) for busy, values in seconds.items()}
    table = Table(
        f"shutdown(timeout={DEADLINE}) of {agents:,} agents (median of {REPEATS[scale]} runs)",
        ["team", "seconds", "vs deadline", "vs idle"],
    )
    for busy, label in ((False, "idle"), (True, "every agent mid-request")):
        table.add(label, took[busy], ratio(took[busy] / DEADLINE), ratio(took[busy] / took[False]))
        result.metrics[f"shutdown.{label.split()[0]}.seconds"] = took[busy]
    result.tables.append(table)
    result.targets.append(
        Target(
            f"a busy team of {agents:,} returns within its deadline plus {DEADLINE}s",
            took[True] / DEADLINE,
            2.0,
            "x deadline",
        )
    )
    result.notes.append(
        "Half the busy agents are blocked in sync model code in worker threads: shutdown "
        "returns without them; they finish unwinding after it."
    )
    return result


CASE = Case("shutdown", "Shutdown within its deadline", run, order=70)
