"""Spawn: hiring N agents, in milliseconds and resident kilobytes per agent, against pykka.

Four ways of starting N actors, each measured in a fresh interpreter (so memory freed by one
variant cannot be reused by the next and hide its cost), after a warm-up of a few actors of
the same kind (imports, plugin discovery and first-use caches are not charged to the N):

- raw pykka `ThreadingActor`s, started and pinged once (the baseline);
- retinue `Actor`s joining a team (the runtime: address, admission, start notice);
- `BaseAgent`s from an `AgentCard` through the orchestrator's `createActor`;
- `BaseAgent`s hired by a manager agent with `hire_member` (the `retinue-team` card), the
  path a model takes when it names a role; skipped when retinue-team is not installed.

Time runs until every actor has started (`wait_idle`, or a ping for pykka). Memory is the
RSS growth over the N, after a garbage collection; for agents also after each has answered
one message, which builds its pydantic-ai `Agent`.
"""

from __future__ import annotations

import time
from typing import Any

import pykka
from retinue import Actor, ActorAddress, BaseConfig, BaseState, Message

from benchmarks.measure import BenchTeam, agent_card, run_child, settled_rss_kb
from benchmarks.suite import Case, CaseResult, Scale, Table, Target, ratio

COUNTS: dict[str, int] = {"full": 200, "quick": 100, "tiny": 4}
WARM = 3
VARIANTS = ("pykka", "actor", "agent", "hire")
LABELS = {
    "pykka": "raw pykka ThreadingActor",
    "actor": "retinue Actor (runtime only)",
    "agent": "BaseAgent via createActor",
    "hire": "BaseAgent via hire_member",
}


class RawActor(pykka.ThreadingActor):
    use_daemon_thread = True

    def on_receive(self, message: Any) -> Any:
        return message


class PlainActor(Actor[BaseConfig, BaseState]):
    def receiveMsg_Message(self, message: Message, sender: Any) -> None:
        pass


def team_plugin_installed() -> bool:
    from retinue.plugins import collect_card_classes, get_plugin_manager

    return "team" in collect_card_classes(get_plugin_manager())


def measure_variant(variant: str, count: int) -> dict[str, float | None]:
    """Start `count` actors the `variant` way; ms and KB per actor (child-interpreter entry)."""
    if variant == "pykka":
        return _measure_pykka(count)
    team = BenchTeam()
    try:
        starter = Starter(team, variant, count)
        starter.start(WARM)
        team.wait_idle()
        before = settled_rss_kb()
        start = time.perf_counter()
        members = starter.start(count)
        team.wait_idle()
        seconds = time.perf_counter() - start
        after = settled_rss_kb()
        figures: dict[str, float | None] = {
            "ms_per_agent": 1e3 * seconds / count,
            "kb_per_agent": (after - before) / count,
            "kb_after_run": None,
        }
        if starter.manager is not None:
            figures.update(_roster_update(team, starter.manager))
        if variant in ("agent", "hire"):
            for member in members:  # one at a time: what each keeps, not a concurrent peak
                team.say(member, "hello")
                team.wait_idle()
            figures["kb_after_run"] = (settled_rss_kb() - before) / count
        return figures
    finally:
        team.shutdown()


class Starter:
    """Starts actors the `variant` way; the hiring manager, if any, is kept for inspection."""

    def __init__(self, team: BenchTeam, variant: str, count: int) -> None:
        if variant not in ("actor", "agent", "hire"):
            raise ValueError(f"unknown variant {variant!r}")
        self.team = team
        self.variant = variant
        self.worker = agent_card("Worker", "silent")
        self.manager: ActorAddress | None = None
        if variant != "actor":
            team.register(self.worker)
        if variant == "hire":
            from retinue_team import TeamTool

            card = agent_card("Manager", "silent", tools=[TeamTool(max_members=count + 3 * WARM)])
            self.manager = team.add(card)
            self.proxy: Any = team.system.proxy_ask(self.manager)

    def start(self, n: int) -> list[ActorAddress]:
        if self.variant == "actor":
            config = BaseConfig(name="@Plain", role="Plain")
            return [self.team.orchestrator_proxy.createActor(PlainActor, config) for _ in range(n)]
        if self.variant == "agent":
            return [self.team.add(self.worker) for _ in range(n)]
        return [self.proxy.hire_member("Worker") for _ in range(n)]


def _roster_update(team: BenchTeam, manager: ActorAddress) -> dict[str, float | None]:
    """One context update on the idle hiring manager: the real team card's providers."""
    agent = team.actor(manager)
    updater = agent._context_updater
    history = agent.react_agent.context.messages
    agent.state.tool_state.drop_baselines()
    start = time.perf_counter()
    block = updater.compose(history)
    full = time.perf_counter() - start
    history.append(_as_request(block))
    start = time.perf_counter()
    updater.compose(history)
    again = time.perf_counter() - start
    return {
        "roster_members": float(len(team.orchestrator_proxy.get_team_members())),
        "roster_full_ms": 1e3 * full,
        "roster_unchanged_ms": 1e3 * again,
        "roster_block_chars": float(len(block.content) if block is not None else 0),
    }


def _as_request(block: Any) -> Any:
    from pydantic_ai.messages import ModelRequest, UserPromptPart

    return ModelRequest(parts=[UserPromptPart(content=[block] if block is not None else "")])


def _measure_pykka(count: int) -> dict[str, float | None]:
    def start(n: int) -> list[pykka.ActorRef[Any]]:
        refs = [RawActor.start() for _ in range(n)]
        for ref in refs:
            ref.ask("ping")
        return refs

    warm = start(WARM)
    before = settled_rss_kb()
    t0 = time.perf_counter()
    refs = start(count)
    seconds = time.perf_counter() - t0
    after = settled_rss_kb()
    for ref in [*warm, *refs]:
        ref.stop()
    return {
        "ms_per_agent": 1e3 * seconds / count,
        "kb_per_agent": (after - before) / count,
        "kb_after_run": None,
    }


def run(scale: Scale) -> CaseResult:
    count = COUNTS[scale]
    isolate = scale != "tiny"  # the smoke run stays in-process, for speed
    result = CaseResult(case="spawn", scale=scale)
    variants = [v for v in VARIANTS if v != "hire" or team_plugin_installed()]
    if "hire" not in variants:
        result.notes.append("retinue-team is not installed: hire_member was not measured.")
    figures: dict[str, dict[str, Any]] = {}
    for variant in variants:
        if isolate:
            figures[variant] = run_child(
                "benchmarks.cases.spawn:measure_variant", variant=variant, count=count
            )
        else:
            figures[variant] = measure_variant(variant, count)

    base = figures["pykka"]
    table = Table(
        f"Spawn {count} actors (each variant in a fresh interpreter)"
        if isolate
        else f"Spawn {count} actors (in-process)",
        ["variant", "ms/agent", "vs pykka", "KB/agent", "vs pykka", "KB/agent after 1 run"],
    )
    for variant in variants:
        f = figures[variant]
        table.add(
            LABELS[variant],
            f["ms_per_agent"],
            ratio(f["ms_per_agent"] / base["ms_per_agent"]),
            f["kb_per_agent"],
            ratio(f["kb_per_agent"] / base["kb_per_agent"]) if base["kb_per_agent"] > 0 else None,
            f["kb_after_run"],
        )
        for key, value in f.items():
            if value is not None:
                result.metrics[f"{variant}.{key}"] = float(value)
    result.tables.append(table)
    hire = figures.get("hire")
    if hire is not None and hire.get("roster_full_ms") is not None:
        roster = Table(
            f"One context update on the hiring agent, {int(hire['roster_members'])} members "
            "(retinue-team's roster and role providers)",
            ["kind", "ms", "block chars"],
        )
        roster.add("full snapshot", hire["roster_full_ms"], int(hire["roster_block_chars"]))
        roster.add("unchanged", hire["roster_unchanged_ms"], None)
        result.tables.append(roster)

    main = "hire" if "hire" in figures else "agent"
    result.targets += [
        Target(f"spawn time per agent ({LABELS[main]})", figures[main]["ms_per_agent"], 1.0, "ms"),
        Target(f"memory per agent ({LABELS[main]})", figures[main]["kb_per_agent"], 100.0, "KB"),
    ]
    after_run = figures[main]["kb_after_run"]
    if after_run is not None:
        result.targets.append(
            Target(
                f"memory per agent after its first turn ({LABELS[main]})", after_run, 100.0, "KB"
            )
        )
    result.notes.append(
        "KB/agent is RSS growth over the N divided by N, after a garbage collection; "
        "'after 1 run' also counts each agent's first turn (its history, the records of it "
        "the orchestrator's window keeps, and pydantic-ai's first use of the shared agent)."
    )
    return result


CASE = Case("spawn", "Hiring agents: ms and KB per agent vs raw pykka", run, order=20)
