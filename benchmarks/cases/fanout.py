"""Fan-out: one manager delegates to N hired agents whose models each take a fixed delay.

@Human asks @Manager to `fan out to N`; the manager's one turn sends a request to each of
@Worker..@WorkerN (hired beforehand, through `hire_member` when retinue-team is installed);
each worker's scripted async model sleeps `delay` and answers; the manager takes each answer
as a turn of its own and, with all N in, tells @Human. Wall time runs from the human's
message to that answer.

The ideal critical path is one model delay: every worker's call can overlap. The baseline is
the same exchange in bare pydantic-ai on one event loop (the manager's turn, N worker runs
under `asyncio.gather`, then N manager turns), which shows what the model loop itself costs.
Two sizes: 50 agents on 50 ms models (the requests must all leave at once: the spread
between the first and the last worker call is reported) and 500 agents on 200 ms models.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Any

from pydantic_ai.messages import ModelMessage

from benchmarks import scripts
from benchmarks.cases.spawn import team_plugin_installed
from benchmarks.measure import BenchTeam, QuietHuman, agent_card, bare_agent, median
from benchmarks.suite import Case, CaseResult, Scale, Table, Target, ratio


@dataclass(frozen=True)
class Size:
    """One fan-out: how many workers, how long each model call takes, how many repeats."""

    workers: int
    delay: float
    repeats: int
    wall_goal: float
    """At most this many times the bare exchange's wall time (a target, reported)."""
    spread_goal_ms: float | None = None
    """At most this many ms between the first and the last worker call (a target)."""


SIZES: dict[str, list[Size]] = {
    "full": [Size(50, 0.05, 5, 1.3, 60.0), Size(500, 0.2, 2, 1.5)],
    "quick": [Size(50, 0.05, 2, 1.3, 60.0), Size(500, 0.2, 1, 1.5)],
    "tiny": [Size(4, 0.05, 1, 1.3, 60.0), Size(8, 0.2, 1, 1.5)],
}


def retinue_fanout(workers: int) -> dict[str, float]:
    """Seconds from the human's request to the manager's answer; hires first (untimed)."""
    team = BenchTeam()
    try:
        worker_card = agent_card("Worker", "delayed_worker")
        team.register(worker_card)
        tools: list[Any] = []
        if team_plugin_installed():
            from retinue_team import TeamTool

            tools = [TeamTool(max_members=workers + 5)]
        manager = team.add(agent_card("Manager", "fan_out_manager", tools=tools))
        if tools:
            proxy: Any = team.system.proxy_ask(manager)
            for _ in range(workers):
                proxy.hire_member("Worker")
        else:
            for _ in range(workers):
                team.add(worker_card)
        team.wait_idle()
        scripts.reset()
        QuietHuman.arrivals.clear()
        QuietHuman.arrived.clear()
        start = time.perf_counter()
        team.say(manager, f"fan out to {workers}")
        if not QuietHuman.arrived.wait(120):
            raise RuntimeError("the manager never answered the fan-out")
        seconds = QuietHuman.arrivals[0] - start
        team.wait_idle()
        return _timeline(start, seconds)
    finally:
        team.shutdown()


def bare_fanout(workers: int) -> dict[str, float]:
    """The same exchange in bare pydantic-ai: one manager, N workers, one event loop."""
    manager = bare_agent(scripts.fan_out_manager)
    crew = [bare_agent(scripts.delayed_worker) for _ in range(workers)]

    async def exchange() -> None:
        history: list[ModelMessage] = []
        prompt = scripts.shown("request", "@Human", f"fan out to {workers}")
        first = await manager.run(prompt, message_history=history)
        history = first.all_messages()
        requests = first.output.messages

        async def work(agent: Any, content: str) -> Any:
            result = await agent.run(scripts.shown("request", "@Manager", content))
            return result.output.messages[0]

        answers = await asyncio.gather(
            *(work(agent, r.message) for agent, r in zip(crew, requests, strict=True))
        )
        for index, answer in enumerate(answers):
            sender = "@Worker" if index == 0 else f"@Worker{index + 1}"
            prompt = scripts.shown("response", sender, answer.message)
            result = await manager.run(prompt, message_history=history)
            history = result.all_messages()
        assert result.output.messages, "the bare manager did not answer"

    scripts.reset()
    start = time.perf_counter()
    asyncio.run(exchange())
    return _timeline(start, time.perf_counter() - start)


def _timeline(start: float, seconds: float) -> dict[str, float]:
    calls = scripts.WORKER_CALLS
    return {
        "seconds": seconds,
        "first_worker": calls[0] - start if calls else float("nan"),
        "last_worker": calls[-1] - start if calls else float("nan"),
        "spread": calls[-1] - calls[0] if calls else float("nan"),
    }


def run(scale: Scale) -> CaseResult:
    result = CaseResult(case="fanout", scale=scale)
    scripts.WORKER_DELAY = 0.05
    retinue_fanout(2)  # warm-up
    bare_fanout(2)
    for size in SIZES[scale]:
        measure_size(size, result)
    return result


def measure_size(size: Size, result: CaseResult) -> None:
    """Interleaved runs of one size; its table, metrics and targets added to `result`."""
    workers, delay, repeats = size.workers, size.delay, size.repeats
    scripts.WORKER_DELAY = delay
    runs: dict[str, list[dict[str, float]]] = {"bare": [], "retinue": []}
    for _ in range(repeats):
        runs["bare"].append(bare_fanout(workers))
        runs["retinue"].append(retinue_fanout(workers))

    def med(variant: str, key: str) -> float:
        return median([r[key] for r in runs[variant]])

    ideal = delay
    serial = workers * delay
    table = Table(
        f"Fan-out to {workers} agents, {delay * 1e3:.0f} ms per model call (median of {repeats})",
        [
            "variant",
            "wall ms",
            "vs ideal",
            "vs bare",
            "overhead/worker ms",
            "vs serial",
            "1st worker call ms",
            "last worker call ms",
            "spread ms",
        ],
    )
    b, t = med("bare", "seconds"), med("retinue", "seconds")
    table.add("ideal critical path (one delay)", 1e3 * ideal, ratio(1), *[None] * 6)
    for label, variant, seconds in (
        ("bare pydantic-ai (asyncio.gather)", "bare", b),
        ("retinue team", "retinue", t),
    ):
        table.add(
            label,
            1e3 * seconds,
            ratio(seconds / ideal),
            ratio(seconds / b),
            1e3 * (seconds - ideal) / workers,
            ratio(seconds / serial),
            1e3 * med(variant, "first_worker"),
            1e3 * med(variant, "last_worker"),
            1e3 * med(variant, "spread"),
        )
    result.tables.append(table)
    key = f"n{workers}"
    result.metrics.update(
        {
            f"{key}.bare.seconds": b,
            f"{key}.retinue.seconds": t,
            f"{key}.retinue.vs_ideal": t / ideal,
            f"{key}.retinue.vs_bare": t / b,
            f"{key}.retinue.overhead_ms_per_worker": 1e3 * (t - ideal) / workers,
            f"{key}.retinue.last_worker_ms": 1e3 * med("retinue", "last_worker"),
            f"{key}.retinue.spread_ms": 1e3 * med("retinue", "spread"),
            f"{key}.bare.spread_ms": 1e3 * med("bare", "spread"),
        }
    )
    what = f"{workers} agents x {delay * 1e3:.0f} ms"
    result.targets.append(
        Target(f"fan-out {what}: wall vs bare gather", t / b, size.wall_goal, "x")
    )
    if size.spread_goal_ms is not None:
        result.targets.append(
            Target(
                f"fan-out {what}: last worker call after the first",
                1e3 * med("retinue", "spread"),
                size.spread_goal_ms,
                "ms",
            )
        )
    result.notes.append(
        f"{what}: serial would be {serial * 1e3:.0f} ms. Worker call times are from the human's "
        "message: their spread shows how quickly the requests went out. Past the one delay, "
        f"the manager takes the {workers} answers as {workers} turns, one after another, with "
        "a growing history: that part grows with N in both variants."
    )


CASE = Case("fanout", "One manager fanning out to N delayed agents vs the ideal", run, order=40)
