"""Ping-pong: two agents bounce one message N times on instant scripted models.

A hop is one agent's whole turn: the message arrives, the agent runs one pydantic-ai loop,
routes its output, and the other agent's model is called. Its time is the interval between
two successive model calls. The baseline is bare pydantic-ai doing the same turns: two
`Agent`s with the same output type, the same prompts and each its own growing history,
driven by a plain loop on one event loop. With a window, both compact the same way
(pydantic-ai's `ProcessHistory` with retinue's window policy), so both keep the same turns.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic_ai.capabilities import ProcessHistory
from pydantic_ai.messages import ModelMessage
from retinue.llm import history

from benchmarks import scripts
from benchmarks.measure import (
    BenchTeam,
    agent_card,
    bare_agent,
    intervals,
    median,
    window_median,
)
from benchmarks.suite import Case, CaseResult, Scale, Table, Target, ratio

HOPS: dict[str, int] = {"full": 2000, "quick": 400, "tiny": 12}
REPEATS: dict[str, int] = {"full": 3, "quick": 1, "tiny": 1}
WINDOW = 20
"""Messages kept by the window compaction."""
CONTEXT_LENGTH = 2400
"""Tokens: compaction runs once the estimated history passes 80% of this."""
EDGE = 0.1
"""Share of the hops that counts as the start (first) and the end (last)."""


@dataclass
class PingPongRun:
    hops: int
    seconds: float
    stamps: list[float]
    history: int
    """Messages in @Ping's history at the end."""
    extra: dict[str, Any] = field(default_factory=dict)
    blocks_per_turn: float | None = None
    """Context-update blocks @Ping was given per turn it took (agents only)."""

    @property
    def per_hop(self) -> list[float]:
        return intervals(self.stamps)

    @property
    def hops_per_s(self) -> float:
        span = self.stamps[-1] - self.stamps[0] if len(self.stamps) > 1 else self.seconds
        return (len(self.stamps) - 1) / span if span > 0 else float("nan")

    @property
    def mean_ms(self) -> float:
        return 1e3 / self.hops_per_s

    @property
    def start_ms(self) -> float:
        return 1e3 * window_median(self.per_hop, EDGE, at_end=False)

    @property
    def end_ms(self) -> float:
        return 1e3 * window_median(self.per_hop, EDGE, at_end=True)


def retinue_pingpong(hops: int, *, window: bool, plugins: bool = True) -> PingPongRun:
    """@Human starts `hop 0/N` at @Ping; @Ping and @Pong bounce it until hop N."""
    team = BenchTeam(plugins=plugins)
    try:
        options: dict[str, Any] = (
            {"window": WINDOW, "context_length": CONTEXT_LENGTH} if window else {}
        )
        ping = team.add(agent_card("Player", "bounce", name="@Ping", **options))
        team.add(agent_card("Player", "bounce", name="@Pong", **options))
        team.wait_idle()
        scripts.reset()
        start = time.perf_counter()
        team.say(ping, f"hop 0/{hops}")
        team.wait_idle()
        seconds = time.perf_counter() - start
        agent = team.actor(ping)
        turns = hops // 2 + 1  # @Ping takes the even hops
        return PingPongRun(
            hops=hops,
            seconds=seconds,
            stamps=list(scripts.CALLS),
            history=len(agent.react_agent.context),
            extra={"system_block": agent.react_agent.system_block},
            blocks_per_turn=agent.state.tool_state.last_block / turns,
        )
    finally:
        team.shutdown()


def bare_pingpong(hops: int, *, window: bool, instructions: str | None = None) -> PingPongRun:
    """The same turns with bare pydantic-ai agents and a plain loop."""
    budget = CONTEXT_LENGTH * 0.8

    async def trim(messages: list[ModelMessage]) -> list[ModelMessage]:
        if history.estimate_tokens(messages, instructions) <= budget:
            return messages
        return history.window(messages, WINDOW)[1]

    agents = {name: bare_agent(scripts.bounce, instructions) for name in ("@Ping", "@Pong")}
    histories: dict[str, list[ModelMessage]] = {name: [] for name in agents}
    processors = [ProcessHistory(trim)] if window else None

    async def play() -> None:
        current, sender, content = "@Ping", "@Human", f"hop 0/{hops}"
        while True:
            prompt = scripts.shown("request", sender, content)
            result = await agents[current].run(
                prompt, message_history=histories[current], capabilities=processors
            )
            histories[current] = result.all_messages()
            if not result.output.messages:
                return
            request = result.output.messages[0]
            current, sender, content = request.recipient, current, request.message

    scripts.reset()
    start = time.perf_counter()
    asyncio.run(play())
    seconds = time.perf_counter() - start
    return PingPongRun(hops, seconds, list(scripts.CALLS), len(histories["@Ping"]))


def react_pingpong(hops: int, *, window: bool, instructions: str | None = None) -> PingPongRun:
    """The same turns through retinue's model runner alone: two `ReactAgent`s, no actors.

    What this adds over bare pydantic-ai is the llm layer (the hop to the shared model loop,
    the runner's capabilities, history keeping, events); what the full team adds over this
    is the actor and agent layers (mailboxes, routing, orchestrator, context updates).
    """
    from retinue import CompactionConfig, ModelConfig, ReactAgent, RunnerConfig, StructuredOutput

    model_cfg = ModelConfig(
        provider="function",
        model="benchmarks.scripts:bounce",
        context_length=CONTEXT_LENGTH if window else None,
    )
    compaction = CompactionConfig(strategy="window" if window else "none", keep_last=WINDOW)
    config = RunnerConfig(
        model_cfg=model_cfg,
        compaction_cfg=compaction,
        system_prompts=[instructions] if instructions else [],
    )
    agents = {name: ReactAgent(name, config) for name in ("@Ping", "@Pong")}
    current, sender, content = "@Ping", "@Human", f"hop 0/{hops}"
    scripts.reset()
    start = time.perf_counter()
    while True:
        prompt = scripts.shown("request", sender, content)
        output = agents[current].run_sync(prompt, StructuredOutput)
        if not output.messages:
            break
        request = output.messages[0]
        current, sender, content = request.recipient, current, request.message
    seconds = time.perf_counter() - start
    return PingPongRun(hops, seconds, list(scripts.CALLS), len(agents["@Ping"].context))


Runner = Callable[[int, bool, str], PingPongRun]

VARIANTS: dict[str, tuple[str, Runner]] = {
    "bare pydantic-ai": ("bare", lambda h, w, i: bare_pingpong(h, window=w, instructions=i)),
    "retinue ReactAgent alone": (
        "react",
        lambda h, w, i: react_pingpong(h, window=w, instructions=i),
    ),
    "retinue kernel alone": (
        "kernel",
        lambda h, w, i: retinue_pingpong(h, window=w, plugins=False),
    ),
    "retinue + plugins": ("retinue", lambda h, w, i: retinue_pingpong(h, window=w)),
}
"""Label -> (metric slug, runner); the first is the baseline."""


def _variants(window: bool) -> list[str]:
    """Whole-history runs are long and dominated by the history: the ends only."""
    if window:
        return list(VARIANTS)
    return ["bare pydantic-ai", "retinue + plugins"]


def run(scale: Scale) -> CaseResult:
    hops, repeats = HOPS[scale], REPEATS[scale]
    result = CaseResult(case="pingpong", scale=scale)
    # warm-up: imports, first-run schema building, the model loop; and the real system block
    warm = retinue_pingpong(6, window=False)
    instructions = str(warm.extra["system_block"])
    bare_pingpong(6, window=False, instructions=instructions)

    for window in (False, True):
        label = f"window of {WINDOW} messages" if window else "whole history"
        variants = _variants(window)
        runs: dict[str, list[PingPongRun]] = {name: [] for name in variants}
        # whole-history runs are long and their cost is dominated by the history: run once
        for _ in range(repeats if window else 1):
            for name in variants:  # interleaved, so drift hits every variant alike
                runs[name].append(VARIANTS[name][1](hops, window, instructions))

        table = Table(
            f"Ping-pong, {hops:,} hops, {label}"
            + (f" (median of {repeats} interleaved runs)" if window and repeats > 1 else ""),
            [
                "variant",
                "hops/s",
                "ms/hop",
                "vs bare",
                "start ms/hop",
                "end ms/hop",
                "end vs start",
                "start vs bare",
                "end vs bare",
                "history msgs",
                "context blocks/turn",
            ],
        )
        bare = runs["bare pydantic-ai"]
        bare_mean = median([r.mean_ms for r in bare])
        bare_start = median([r.start_ms for r in bare])
        bare_end = median([r.end_ms for r in bare])
        key = "window" if window else "whole"
        for name in variants:
            rs = runs[name]
            mean, start, end = (
                median([r.mean_ms for r in rs]),
                median([r.start_ms for r in rs]),
                median([r.end_ms for r in rs]),
            )
            table.add(
                name,
                median([r.hops_per_s for r in rs]),
                mean,
                ratio(mean / bare_mean),
                start,
                end,
                ratio(end / start),
                ratio(start / bare_start),
                ratio(end / bare_end),
                rs[-1].history,
                rs[-1].blocks_per_turn,
            )
            slug = VARIANTS[name][0]
            result.metrics[f"{key}.{slug}.hops_per_s"] = median([r.hops_per_s for r in rs])
            result.metrics[f"{key}.{slug}.ms_per_hop"] = mean
            result.metrics[f"{key}.{slug}.start_ms"] = start
            result.metrics[f"{key}.{slug}.end_ms"] = end
            result.metrics[f"{key}.{slug}.history_msgs"] = float(rs[-1].history)
            if rs[-1].blocks_per_turn is not None:
                result.metrics[f"{key}.{slug}.blocks_per_turn"] = rs[-1].blocks_per_turn
            if slug != "bare":
                result.metrics[f"{key}.{slug}.ratio"] = mean / bare_mean
                result.metrics[f"{key}.{slug}.end_ratio"] = end / bare_end
        result.tables.append(table)

    m = result.metrics
    # Issue 16's goals: the hop at the end (median of the last 10%) and the mean, vs bare.
    goals = [
        (
            "per hop vs bare, window, all plugins, end (median of last 10%)",
            m["window.retinue.end_ratio"],
            1.15,
        ),
        ("per hop vs bare, window, all plugins, mean", m["window.retinue.ratio"], 1.25),
        ("per hop vs bare, window, kernel alone, mean", m["window.kernel.ratio"], 1.10),
        ("per hop vs bare, whole history, at the end", m["whole.retinue.end_ratio"], 1.0),
        (
            "window: per-hop cost end vs start (flat)",
            m["window.retinue.end_ms"] / m["window.retinue.start_ms"],
            1.2,
        ),
    ]
    result.targets += [Target(label, value, goal, "x") for label, value, goal in goals]
    result.notes.append(
        f"A hop is the interval between two successive model calls; start and end are the "
        f"medians of the first and last {EDGE:.0%} of hops. Window: compaction keeps the last "
        f"{WINDOW} messages once the estimated history passes 80% of {CONTEXT_LENGTH} tokens."
    )
    return result


CASE = Case("pingpong", "Ping-pong between two agents vs bare pydantic-ai", run, order=10)
