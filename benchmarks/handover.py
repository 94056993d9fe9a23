"""What a ping-pong hop costs besides its instructions: CPU time, context switches, hand-overs.

A retinue hop crosses threads (the next agent's mailbox, the run handed to the shared model
loop and its result handed back, the orchestrator's reports); a bare pydantic-ai hop stays
on one thread. Instruction counts (cachegrind) do not see what a crossing costs, and with the
GIL a team's threads hardly ever compute at the same time, so a hop's wall time is close to
the CPU time of all its threads together. This measures, in one process:

- per hop, bare pydantic-ai against retinue (with its plugins, and its runner alone): wall
  time, the CPU time of every thread (user and system), and the context switches of the
  process, each the difference between a long and a short run divided by the extra hops
  (so start-up, warm-up and shutdown cancel out);
- the machine's price of one hand-over: a no-op coroutine submitted from a plain thread to an
  asyncio loop in another thread and waited for, the round trip a runner makes per run.

    python -m benchmarks.handover                 # 600 hops each way
    python -m benchmarks.handover --hops 2000
    taskset -c 0 python -m benchmarks.handover    # the same with every thread on one core

Read the hand-over figure against the gap between the variants' CPU per hop: on a machine
where waking a thread on another core is dear (a virtual machine), it explains most of it.
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

SHORT = 20
"""Hops of the short run whose cost is subtracted (start, warm-up, shutdown)."""


@dataclass(frozen=True)
class Usage:
    """Wall time, CPU time and context switches of the whole process since an origin."""

    wall: float
    user: float
    system: float
    switches: int

    @classmethod
    def now(cls) -> Usage:
        ru = resource.getrusage(resource.RUSAGE_SELF)  # every thread, ended ones too
        return cls(time.perf_counter(), ru.ru_utime, ru.ru_stime, ru.ru_nvcsw + ru.ru_nivcsw)

    def __sub__(self, other: Usage) -> Usage:
        return Usage(
            self.wall - other.wall,
            self.user - other.user,
            self.system - other.system,
            self.switches - other.switches,
        )


def _measured(play: Callable[[int], object], hops: int) -> Usage:
    before = Usage.now()
    play(hops)
    return Usage.now() - before


def per_hop(play: Callable[[int], object], hops: int) -> Usage:
    """What one hop adds: (a `hops` run minus a `SHORT` run) / the extra hops."""
    long, short = _measured(play, hops), _measured(play, SHORT)
    extra = hops - SHORT
    diff = long - short
    return Usage(diff.wall / extra, diff.user / extra, diff.system / extra, diff.switches // extra)


def handover_round_trip(count: int = 20_000) -> Usage:
    """One round trip thread -> asyncio loop thread -> thread, as a runner makes per run."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()

    async def nothing() -> None:
        return None

    def trips(n: int) -> None:
        for _ in range(n):
            asyncio.run_coroutine_threadsafe(nothing(), loop).result()

    try:
        trips(1_000)
        before = Usage.now()
        trips(count)
        spent = Usage.now() - before
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join()
        loop.close()
    return Usage(spent.wall / count, spent.user / count, spent.system / count, 0)


def measure(hops: int) -> tuple[dict[str, Usage], Usage]:
    """Per-hop usage of each variant (bare pydantic-ai first), and one hand-over round trip."""
    from benchmarks.cases import pingpong

    warm = pingpong.retinue_pingpong(6, window=True)
    instructions = str(warm.extra["system_block"])
    variants: dict[str, Callable[[int], object]] = {
        "bare pydantic-ai": lambda n: pingpong.bare_pingpong(
            n, window=True, instructions=instructions
        ),
        "retinue ReactAgent alone": lambda n: pingpong.react_pingpong(
            n, window=True, instructions=instructions
        ),
        "retinue + plugins": lambda n: pingpong.retinue_pingpong(n, window=True),
    }
    for play in variants.values():
        play(6)
    return {name: per_hop(play, hops) for name, play in variants.items()}, handover_round_trip()


def render(hops: int, measured: dict[str, Usage], trip: Usage) -> str:
    from benchmarks.suite import Table, render_table

    bare = next(iter(measured.values()))
    table = Table(
        f"Per hop, window ({hops} hops minus {SHORT}): time, CPU of every thread, switches",
        ["variant", "wall ms", "vs bare", "CPU ms", "vs bare", "user ms", "system ms", "switches"],
    )
    for name, hop in measured.items():
        cpu = hop.user + hop.system
        table.add(
            name,
            1e3 * hop.wall,
            f"{hop.wall / bare.wall:.2f}x",
            1e3 * cpu,
            f"{cpu / (bare.user + bare.system):.2f}x",
            1e3 * hop.user,
            1e3 * hop.system,
            hop.switches,
        )
    return (
        f"{render_table(table)}\n\n"
        "one hand-over round trip (thread -> asyncio loop thread -> thread): "
        f"{1e6 * trip.wall:.1f} µs wall, {1e6 * (trip.user + trip.system):.1f} µs CPU "
        f"({1e6 * trip.user:.1f} user, {1e6 * trip.system:.1f} system)"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hops", type=int, default=600)
    args = parser.parse_args(argv)
    if args.hops <= SHORT:
        parser.error(f"--hops must be more than {SHORT}")
    print(render(args.hops, *measure(args.hops)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
