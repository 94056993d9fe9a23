"""What pydantic-ai itself charges a run per capability and per tool (`--capabilities`).

The kernel adds capabilities and tools to every agent; this prices them on a bare
pydantic-ai agent, so the kernel's own cost can be told from pydantic-ai's price for them.
"""

from __future__ import annotations

import time
from typing import Any


def capability_cost(runs: int = 300, repeats: int = 3) -> str:
    """One bare pydantic-ai run with extra no-op capabilities and tools, µs per run.

    A BaseAgent's runs carry three kernel capabilities (the runner's hooks, the mailbox
    check, the recipient check) and the default cards' tools; this prices them in isolation.
    """
    import asyncio
    from dataclasses import dataclass

    from pydantic_ai import Agent
    from pydantic_ai.capabilities import AbstractCapability
    from pydantic_ai.models.function import FunctionModel
    from retinue import StructuredOutput

    from benchmarks import scripts
    from benchmarks.measure import median
    from benchmarks.suite import Table, render_table

    @dataclass
    class BeforeRequest(AbstractCapability[Any]):
        async def before_model_request(self, ctx: Any, request_context: Any) -> Any:
            return request_context

    @dataclass
    class AfterOutput(AbstractCapability[Any]):
        async def after_output_validate(self, ctx: Any, *, output_context: Any, output: Any) -> Any:
            return output

    def hire(roles: list[str]) -> str:
        """Hire members."""
        return ""

    def fire(names: list[str]) -> str:
        """Fire members."""
        return ""

    def read() -> str:
        """Read the mailbox."""
        return ""

    def agent(capabilities: int, tools: bool) -> Agent[None, StructuredOutput]:
        kinds = [BeforeRequest(), AfterOutput(), BeforeRequest()][:capabilities]
        return Agent(
            FunctionModel(scripts.silent),
            output_type=StructuredOutput,
            instructions="You are @Ping.",
            capabilities=list(kinds),
            tools=[hire, fire, read] if tools else [],
        )

    variants = {
        "plain agent": agent(0, False),
        "+1 no-op capability": agent(1, False),
        "+3 no-op capabilities": agent(3, False),
        "+3 tools": agent(0, True),
        "+3 capabilities, +3 tools": agent(3, True),
    }

    async def per_run(subject: Agent[None, StructuredOutput]) -> float:
        await subject.run("warm-up")
        times = []
        for i in range(runs):
            start = time.perf_counter()
            await subject.run(f"Incoming request from @Pong.\n\nhop {i}/{runs}")
            times.append(time.perf_counter() - start)
        return median(times)

    async def measure() -> dict[str, list[float]]:
        out: dict[str, list[float]] = {name: [] for name in variants}
        for _ in range(repeats):
            for name, subject in variants.items():
                out[name].append(await per_run(subject))
        return out

    results = asyncio.run(measure())
    plain = median(results["plain agent"])
    table = Table(
        f"pydantic-ai's price per capability and per tool (median µs per run, {runs} runs)",
        ["agent", "µs/run", "added µs"],
    )
    for name, times in results.items():
        table.add(name, 1e6 * median(times), 1e6 * (median(times) - plain))
    return render_table(table)
