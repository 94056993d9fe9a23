"""Planning: a turn's cost with the planning card as the board grows, and a change's cost.

Part one: N agents each get one message per round, on an instant model, with the planning
card and a board of B tasks (all but 20 of them done, so the summary lists 20 and counts
the rest), against the same team without the card. Round 1 is every agent's first turn (a
full snapshot of the board); round 2 is one more message with the board unchanged (nothing
to add: the card must cost next to nothing); before round 3 one task changes, so every
agent's turn carries a one-task delta. Every (variant, B) runs in a fresh interpreter.

Part two: changes sent straight to the board actor from several threads at once (no model),
against the same number of plain asks to it that change nothing (`get_state`): what the
rules, the versioned state and the event cost on top of an ask.
"""

from __future__ import annotations

import math
import threading
import time
from typing import Any

from retinue import AgentMessage

from benchmarks.measure import BenchTeam, agent_card, median, run_child
from benchmarks.suite import Case, CaseResult, Scale, Table, Target, ratio

AGENTS: dict[str, int] = {"full": 50, "quick": 20, "tiny": 3}
BOARDS: dict[str, list[int]] = {"full": [100, 1000, 10000], "quick": [100, 1000], "tiny": [10]}
CHANGES: dict[str, int] = {"full": 5000, "quick": 1000, "tiny": 50}
REPEATS: dict[str, int] = {"full": 2, "quick": 1, "tiny": 1}
OPEN_TASKS = 20
VARIANTS = ("card", "bare")
LABELS = {"card": "with the planning card", "bare": "without it (baseline)"}


def planning_installed() -> bool:
    from retinue.plugins import collect_card_classes, get_plugin_manager

    return "planning" in collect_card_classes(get_plugin_manager())


def seed(team: BenchTeam, tasks: int) -> Any:
    """A board of `tasks` tasks, all done but the last `OPEN_TASKS`; returns its handle."""
    from retinue_planning import NewTask, team_board

    board = team_board(team.system, team.orchestrator)
    proxy = board.proxy(600.0)
    for start in range(0, tasks, 50):
        drafts = [
            NewTask(title=f"Task {n}", status="done" if n <= tasks - OPEN_TASKS else "todo")
            for n in range(start + 1, min(tasks, start + 50) + 1)
        ]
        proxy.create_tasks(drafts, "@Bench")
    return board


def measure_turns(agents: int, tasks: int, variant: str) -> dict[str, float]:
    """Wall and CPU ms per turn, three rounds of one message to each agent (child entry)."""
    card = variant == "card"
    if card and not planning_installed():
        return {}
    team = BenchTeam(ask_timeout=600.0)
    try:
        board = seed(team, tasks) if card else None
        worker = agent_card("Worker", "answer_human", tools=["planning"] if card else [])
        team.register(worker)
        workers = [team.add(worker) for _ in range(agents)]
        team.wait_idle()
        figures: dict[str, float] = {}
        for round_ in (1, 2, 3):
            if round_ == 3 and board is not None:
                from retinue_planning import TaskChanges

                board.proxy().update_task(f"T{tasks}", TaskChanges(status="doing"), "@Bench")
            start, cpu = time.perf_counter(), time.process_time()
            for address in workers:
                team.system.send(address, AgentMessage(content="ping"), sender=team.human)
            team.wait_idle()
            figures[f"round{round_}_ms"] = 1e3 * (time.perf_counter() - start) / agents
            figures[f"round{round_}_cpu_ms"] = 1e3 * (time.process_time() - cpu) / agents
        return figures
    finally:
        team.shutdown()


def measure_changes(changes: int, threads: int = 8) -> dict[str, float]:
    """Ms per change and per no-op ask to the board, `threads` senders at once (child entry)."""
    if not planning_installed():
        return {}
    from retinue_planning import NewTask, TaskChanges

    team = BenchTeam(ask_timeout=600.0)
    try:
        board = seed(team, OPEN_TASKS)
        per_thread = changes // threads

        def changer(worker: int) -> None:
            proxy = board.proxy(600.0)
            for n in range(per_thread):
                task = f"T{1 + (worker + n) % OPEN_TASKS}"
                proxy.update_task(task, TaskChanges(note=f"note {n} from {worker}"), "@Bench")

        def reader(worker: int) -> None:
            proxy = board.proxy(600.0)
            for _ in range(per_thread):
                proxy.get_state()

        figures: dict[str, float] = {}
        for name, work in (("ask", reader), ("change", changer), ("ask2", reader)):
            runners = [threading.Thread(target=work, args=(w,)) for w in range(threads)]
            start = time.perf_counter()
            for runner in runners:
                runner.start()
            for runner in runners:
                runner.join()
            figures[f"{name}_ms"] = 1e3 * (time.perf_counter() - start) / (per_thread * threads)
        board.proxy().create_tasks([NewTask(title="last")], "@Bench")
        figures["version"] = float(board.current.version)
        return figures
    finally:
        team.shutdown()


def run(scale: Scale) -> CaseResult:
    agents, boards, repeats = AGENTS[scale], BOARDS[scale], REPEATS[scale]
    result = CaseResult(case="planning", scale=scale)
    if not planning_installed():
        result.notes.append("retinue-planning is not installed: only the baseline ran.")
    runs: dict[tuple[int, str], list[dict[str, float]]] = {}
    for _ in range(repeats):
        for tasks in boards:
            for variant in VARIANTS:
                figures: dict[str, Any] = run_child(
                    "benchmarks.cases.planning:measure_turns",
                    agents=agents,
                    tasks=tasks,
                    variant=variant,
                )
                runs.setdefault((tasks, variant), []).append(figures)

    def med(tasks: int, variant: str, key: str) -> float:
        return median([r[key] for r in runs[(tasks, variant)] if key in r])

    for measure, unit in (("cpu_ms", "CPU ms per turn"), ("ms", "wall ms per turn")):
        table = Table(
            f"{unit}: one message to each of {agents} agents, three rounds (median of {repeats})",
            [
                "board tasks",
                "variant",
                "1st turn",
                "vs baseline",
                "unchanged",
                "vs baseline",
                "one change",
                "vs baseline",
            ],
        )
        for tasks in boards:
            for variant in VARIANTS:
                cells: list[Any] = [f"{tasks:,}", LABELS[variant]]
                for round_ in (1, 2, 3):
                    value = med(tasks, variant, f"round{round_}_{measure}")
                    base = med(tasks, "bare", f"round{round_}_{measure}")
                    cells += [value, ratio(value / base)]
                    result.metrics[f"planning.{tasks}.{variant}.round{round_}_{measure}"] = value
                if not math.isnan(cells[2]):
                    table.add(*cells)
        result.tables.append(table)

    largest = boards[-1]
    unchanged = med(largest, "card", "round2_cpu_ms") / med(largest, "bare", "round2_cpu_ms")
    changed = med(largest, "card", "round3_cpu_ms") / med(largest, "bare", "round3_cpu_ms")
    if not math.isnan(unchanged):
        result.metrics["planning.card_vs_bare.unchanged"] = unchanged
        result.metrics["planning.card_vs_bare.one_change"] = changed
        label = f"CPU per turn, unchanged board of {largest:,} tasks, card vs baseline"
        result.targets.append(Target(label, unchanged, 1.2, "x"))
        label = f"CPU per turn after one change, board of {largest:,} tasks, card vs baseline"
        result.targets.append(Target(label, changed, 1.5, "x"))

    changes = CHANGES[scale]
    figures = run_child("benchmarks.cases.planning:measure_changes", changes=changes)
    if figures:
        ask = min(figures["ask_ms"], figures["ask2_ms"])
        change = figures["change_ms"]
        throughput = Table(
            f"{changes:,} board calls from 8 threads at once",
            ["call", "ms per call", "vs a no-op ask"],
        )
        throughput.add("get_state() (an ask, no change)", ask, ratio(1.0))
        label = "update_task(note=...) (a change and its event)"
        throughput.add(label, change, ratio(change / ask))
        result.tables.append(throughput)
        result.metrics["planning.change_ms"] = change
        result.metrics["planning.ask_ms"] = ask
        result.metrics["planning.change_vs_ask"] = change / ask
        result.metrics["planning.final_version"] = figures["version"]
    result.notes.append(
        "A turn is timed from the first message sent to the team falling idle, divided by the "
        "number of agents; CPU is the whole process's (every thread), which a loaded machine "
        "disturbs far less than wall time, so the targets are read on it. The summary lists "
        "at most 30 tasks whatever the board's size; it is made once per board version and "
        "shared by every agent. Round 1 also pays for building each agent's pydantic-ai "
        "agent, with five more tools when the card is there."
    )
    return result


CASE = Case("planning", "The planning card's cost per turn as the board grows", run, 46)
