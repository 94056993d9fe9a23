"""Where the framework's time goes in the ping-pong case: profiles, stage timers, ablation.

`cProfile` sees one thread; a team runs in many (one per actor, plus the model loop). While
`ThreadProfiles` is active, every thread started gets its own profiler, the calling thread
and the model loop thread too, and the results are merged into one `pstats.Stats`.

    python -m benchmarks.profiling --hops 600 --window            # cProfile, all threads
    python -m benchmarks.profiling --hops 600 --window --compare  # ... minus bare pydantic-ai
    python -m benchmarks.profiling --stages --hops 1000 --window  # elapsed time per stage
    python -m benchmarks.profiling --ablate --hops 600 --window   # one kernel feature off
    python -m benchmarks.profiling --ablate --fanout 50           # the same, on the fan-out
    python -m benchmarks.profiling --capabilities                 # pydantic-ai's own prices

What a hop costs beyond its instructions (CPU time, context switches, the machine's price of
a thread hand-over) is measured by `python -m benchmarks.handover`.

A profiler distorts: it charges every Python call, so call-heavy code (pydantic-ai) looks
dearer than it is, and elapsed-time profiles charge waits to whatever call was waiting.
Read the profiles for *where*, and the stage timers and the ablation (plain clocks, whole
runs) for *how much*.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

#: Functions that only wait (a lock, a queue, a selector): their self time is idle time.
WAITING = (
    "acquire",
    "wait",
    "poll",
    "select",
    "sleep",
    "_wait_for_tstate_lock",
    "get",
    "join",
    "run_forever",
    "_run_once",
)


class ThreadProfiles:
    """Profiles the calling thread and every thread started while it is active.

    By default the clock is elapsed time, so a thread's call that waits (a lock, a queue, a
    socket, the GIL) is charged its wait too; `wall=False` uses each thread's CPU time
    (`time.thread_time`) instead: waits are free, but every call then costs a system call,
    which inflates call-heavy code (pydantic-ai) far more than the rest.
    """

    def __init__(self, *, wall: bool = True) -> None:
        self._timer: Callable[[], float] = time.perf_counter if wall else time.thread_time
        self._profiles: dict[int, cProfile.Profile] = {}
        self._lock = threading.Lock()
        self._original_run: Callable[[threading.Thread], None] | None = None

    def _new(self) -> cProfile.Profile:
        profile = cProfile.Profile(self._timer)
        with self._lock:
            self._profiles[threading.get_ident()] = profile
        return profile

    def start(self) -> None:
        original = threading.Thread.run
        self._original_run = original
        owner = self

        def run(thread: threading.Thread) -> None:
            profile = owner._new()
            profile.enable()
            try:
                original(thread)
            finally:
                profile.disable()

        setattr(threading.Thread, "run", run)  # noqa: B010 - patched for every new thread
        self._new().enable()
        _enable_in_model_loop(self._new)

    def stop(self) -> pstats.Stats:
        """Stop profiling here and in the model loop; merge what every thread recorded."""
        if self._original_run is not None:
            setattr(threading.Thread, "run", self._original_run)  # noqa: B010
        self._profiles[threading.get_ident()].disable()
        _disable_in_model_loop(self._profiles)
        profiles = [p for p in self._profiles.values() if _has_data(p)]
        stats = pstats.Stats(profiles[0])
        for profile in profiles[1:]:
            stats.add(profile)
        return stats


def _has_data(profile: cProfile.Profile) -> bool:
    profile.create_stats()
    return bool(profile.stats)


def _enable_in_model_loop(new: Callable[[], cProfile.Profile]) -> None:
    """The model loop thread may already run (it starts on first use): profile it from now."""
    from retinue.llm import loop as model_loop

    running = model_loop._Shared.loop
    if running is None or not running.is_alive():
        return

    async def enable() -> None:
        new().enable()

    running.run(enable(), timeout=10)


def _disable_in_model_loop(profiles: dict[int, cProfile.Profile]) -> None:
    from retinue.llm import loop as model_loop

    running = model_loop._Shared.loop
    if running is None or not running.is_alive():
        return

    async def disable() -> None:
        profile = profiles.get(threading.get_ident())
        if profile is not None:
            profile.disable()

    running.run(disable(), timeout=10)


@contextmanager
def profiled(*, wall: bool = True) -> Iterator[list[pstats.Stats]]:
    """`with profiled() as out:` ... `out[0]` holds the merged stats afterwards."""
    profiles = ThreadProfiles(wall=wall)
    out: list[pstats.Stats] = []
    profiles.start()
    try:
        yield out
    finally:
        out.append(profiles.stop())


def _label(func: tuple[str, int, str]) -> str:
    filename, line, name = func
    for marker in ("/site-packages/", "/src/", "/lib/python3"):
        if marker in filename:
            filename = filename.split(marker, 1)[1]
            break
    return f"{filename}:{line}({name})" if line else name


PACKAGES = (
    "retinue_team",
    "retinue_mailbox",
    "retinue_planning",
    "retinue",
    "pydantic_ai",
    "pydantic_core",
    "pydantic",
    "pykka",
    "pluggy",
    "anyio",
    "opentelemetry",
    "benchmarks",
)
"""Packages time is grouped by (a file belongs to the first whose directory it is in)."""


def _package(func: tuple[str, int, str]) -> str:
    filename = func[0]
    for name in PACKAGES:
        if f"/{name}/" in filename:
            return name
    if filename == "~":
        return "builtins"
    return "stdlib/other"


def is_waiting(func: tuple[str, int, str]) -> bool:
    name = func[2]
    return any(w in name for w in WAITING) and (func[0] == "~" or "threading" in func[0])


def summarize(stats: pstats.Stats, *, top: int = 25, units: int = 1) -> str:
    """Self time by package and the top functions by self time, idle waits left out.

    `units` (hops) turns totals into microseconds per hop.
    """
    raw: dict[tuple[str, int, str], Any] = stats.stats  # type: ignore[attr-defined]
    busy = {f: v for f, v in raw.items() if not is_waiting(f)}
    total = sum(v[2] for v in busy.values()) or 1e-12
    per_package: dict[str, float] = {}
    for func, (_cc, _nc, tt, _ct, _callers) in busy.items():
        per_package[_package(func)] = per_package.get(_package(func), 0.0) + tt
    out = io.StringIO()
    out.write(f"busy self time: {total:.2f} s ({total / units * 1e6:.0f} µs per hop)\n\n")
    out.write("self time by package (waits excluded)\n")
    for package, tt in sorted(per_package.items(), key=lambda kv: -kv[1]):
        out.write(f"  {package:<16} {tt:7.2f} s  {100 * tt / total:5.1f}%  ")
        out.write(f"{tt / units * 1e6:7.0f} µs/hop\n")
    out.write(f"\ntop {top} functions by self time (waits excluded)\n")
    ranked = sorted(busy.items(), key=lambda kv: -kv[1][2])[:top]
    for func, (_cc, nc, tt, ct, _callers) in ranked:
        out.write(
            f"  {tt:6.2f} s {100 * tt / total:5.1f}%  calls/hop {nc / units:7.1f}  "
            f"cum {ct:6.2f} s  {_label(func)}\n"
        )
    return out.getvalue()


def cumulative(stats: pstats.Stats, names: list[str], *, units: int = 1) -> str:
    """Inclusive time of chosen functions (`module.py:function` suffixes), per hop."""
    raw: dict[tuple[str, int, str], Any] = stats.stats  # type: ignore[attr-defined]
    out = io.StringIO()
    out.write("inclusive time of framework stages\n")
    for wanted in names:
        file_part, _, func_name = wanted.partition(":")
        for func, (_cc, nc, _tt, ct, _callers) in raw.items():
            if func[2] == func_name and func[0].endswith(file_part):
                out.write(
                    f"  {ct:6.2f} s  {ct / units * 1e6:7.0f} µs/hop  calls/hop {nc / units:5.1f}"
                    f"  {_label(func)}\n"
                )
    return out.getvalue()


STAGES = [
    "agent/agent.py:receiveMsg_AgentMessage",
    "agent/agent.py:act",
    "agent/agent.py:_deliver_context_update",
    "tools/context_updates.py:compose",
    "tools/context_updates.py:reconcile",
    "retinue_team/card.py:roster_state",
    "retinue_team/card.py:roles_state",
    "llm/react_agent.py:_execute",
    "llm/react_agent.py:_finish",
    "llm/events.py:message_to_data",
    "agent/agent.py:_route_output",
    "agent/agent.py:routing_problems",
    "actors/system.py:ask",
    "actors/checkpoints.py:notify_if_changed",
    "actors/sending.py:_tell_orchestrator",
    "actors/messages.py:addressed",
    "team/orchestrator.py:receiveMsg_Message",
    "pydantic_ai/agent/abstract.py:run",
    "pydantic_ai/agent/__init__.py:iter",
    "llm/history.py:estimate_tokens",
]


def difference(stats: pstats.Stats, baseline: pstats.Stats, *, units: int, top: int = 25) -> str:
    """Functions whose self time grew most over the baseline, per hop (waits excluded)."""
    raw: dict[tuple[str, int, str], Any] = stats.stats  # type: ignore[attr-defined]
    base: dict[tuple[str, int, str], Any] = baseline.stats  # type: ignore[attr-defined]
    rows = []
    for func, (_cc, nc, tt, _ct, _callers) in raw.items():
        if is_waiting(func):
            continue
        b_nc, b_tt = (base[func][1], base[func][2]) if func in base else (0, 0.0)
        rows.append((tt - b_tt, (nc - b_nc) / units, func))
    extra = sum(r[0] for r in rows)
    out = io.StringIO()
    out.write(f"self time added over the baseline: {extra / units * 1e6:.0f} µs per hop\n")
    per_package: dict[str, float] = {}
    for delta, _calls, func in rows:
        per_package[_package(func)] = per_package.get(_package(func), 0.0) + delta
    for package, delta in sorted(per_package.items(), key=lambda kv: -kv[1]):
        out.write(f"  {package:<16} {delta / units * 1e6:+8.0f} µs/hop\n")
    out.write(f"\ntop {top} functions by added self time\n")
    for delta, calls, func in sorted(rows, key=lambda r: -r[0])[:top]:
        out.write(
            f"  {delta / units * 1e6:+8.0f} µs/hop  {calls:+7.1f} calls/hop  {_label(func)}\n"
        )
    return out.getvalue()


def patch_attribute(target: Any, name: str, replacement: Any) -> Callable[[], None]:
    """Set `target.name` to `replacement`; returns what sets it back."""
    original = getattr(target, name)
    setattr(target, name, replacement)
    return lambda: setattr(target, name, original)


# -- stage timers: a few wrapped methods, elapsed time, negligible overhead ----------------------


def _timed(totals: dict[str, list[float]], label: str, function: Any) -> Any:
    import functools
    import inspect

    if inspect.iscoroutinefunction(function):

        @functools.wraps(function)
        async def timed_async(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return await function(*args, **kwargs)
            finally:
                totals.setdefault(label, []).append(time.perf_counter() - start)

        return timed_async

    @functools.wraps(function)
    def timed(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            totals.setdefault(label, []).append(time.perf_counter() - start)

    return timed


def stages(hops: int, *, window: bool) -> str:
    """Elapsed time per hop in the kernel's stages of a turn, next to a bare run."""
    from retinue.actors.actor import Actor
    from retinue.actors.system import ActorSystem
    from retinue.agent.agent import BaseAgent
    from retinue.agent.routing_check import RecipientCheck
    from retinue.llm.react_agent import ReactAgent
    from retinue.team.orchestrator import Orchestrator

    from benchmarks.cases import pingpong
    from benchmarks.suite import Table, render_table

    wrapped = [
        (BaseAgent, "receiveMsg_AgentMessage", "agent turn, whole handler (actor thread)"),
        (BaseAgent, "_deliver_context_update", "  context update (compose + record)"),
        (ReactAgent, "_execute", "  model run as the actor waits for it"),
        (ReactAgent, "_drive", "    pydantic-ai run on the model loop"),
        (RecipientCheck, "after_output_validate", "      recipient check"),
        (ReactAgent, "_finish", "    commit history + events (_finish)"),
        (BaseAgent, "_route_output", "  routing the output (_route_output)"),
        (ActorSystem, "ask", "  blocking asks to the orchestrator"),
        (Actor, "notify_if_changed", "state checkpoint test, every actor (JSON dump)"),
        (Orchestrator, "receiveMsg_Message", "orchestrator: recording messages (its thread)"),
        (Orchestrator, "_call", "orchestrator: answering asks (its thread)"),
    ]
    warm = pingpong.retinue_pingpong(6, window=window)
    instructions = str(warm.extra["system_block"])
    bare = pingpong.bare_pingpong(hops, window=window, instructions=instructions)
    totals: dict[str, list[float]] = {}
    undo = [
        patch_attribute(owner, name, _timed(totals, label, getattr(owner, name)))
        for owner, name, label in wrapped
    ]
    try:
        team = pingpong.retinue_pingpong(hops, window=window)
    finally:
        for step in reversed(undo):
            step()
    table = Table(
        f"Stages of a ping-pong hop, elapsed µs per hop ({hops} hops, "
        f"{'window' if window else 'whole history'})",
        ["stage", "µs/hop", "calls/hop"],
    )
    table.add("a whole hop, bare pydantic-ai", 1e6 * bare.seconds / hops, None)
    table.add("a whole hop, retinue + plugins", 1e6 * team.seconds / hops, None)
    for _owner, _name, label in wrapped:
        times = totals.get(label, [])
        table.add(label, 1e6 * sum(times) / hops, len(times) / hops)
    return render_table(table)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Profile the ping-pong case across threads.")
    parser.add_argument("--hops", type=int, default=600)
    parser.add_argument("--window", action="store_true", help="with a history window")
    parser.add_argument("--no-plugins", action="store_true", help="the kernel alone")
    parser.add_argument("--bare", action="store_true", help="bare pydantic-ai instead")
    parser.add_argument(
        "--compare", action="store_true", help="profile bare pydantic-ai too; show what grew"
    )
    parser.add_argument(
        "--ablate", action="store_true", help="time it with each kernel feature off instead"
    )
    parser.add_argument("--repeats", type=int, default=3, help="interleaved runs (--ablate)")
    parser.add_argument(
        "--fanout", type=int, default=0, help="ablate the fan-out to this many workers instead"
    )
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--dump", help="write the merged pstats here too")
    parser.add_argument("--cpu", action="store_true", help="charge CPU time, not elapsed time")
    parser.add_argument(
        "--stages", action="store_true", help="time the kernel's stages of a turn instead"
    )
    parser.add_argument(
        "--capabilities",
        action="store_true",
        help="price pydantic-ai's per-capability and per-tool cost instead",
    )
    args = parser.parse_args(argv)

    from benchmarks.cases import pingpong

    if args.capabilities:
        from benchmarks.capabilities import capability_cost

        print(capability_cost())
        return 0
    if args.stages:
        print(stages(args.hops, window=args.window))
        return 0
    if args.ablate:
        from benchmarks.ablation import ablate

        print(ablate(args.hops, args.repeats, window=args.window, fanout=args.fanout))
        return 0

    # warm up outside the profile (imports, schemas); the real system block for the baseline
    warm = pingpong.retinue_pingpong(6, window=args.window, plugins=not args.no_plugins)
    instructions = str(warm.extra["system_block"])
    pingpong.bare_pingpong(6, window=args.window, instructions=instructions)

    baseline: pstats.Stats | None = None
    if args.bare or args.compare:
        with profiled(wall=not args.cpu) as out:
            pingpong.bare_pingpong(args.hops, window=args.window, instructions=instructions)
        baseline = out[0]
    stats = baseline
    if not args.bare:
        with profiled(wall=not args.cpu) as out:
            pingpong.retinue_pingpong(args.hops, window=args.window, plugins=not args.no_plugins)
        stats = out[0]
    assert stats is not None
    if args.dump:
        stats.dump_stats(args.dump)
    print(summarize(stats, top=args.top, units=args.hops))
    print(cumulative(stats, STAGES, units=args.hops))
    if args.compare and baseline is not None:
        print(summarize(baseline, top=0, units=args.hops))
        print(difference(stats, baseline, units=args.hops, top=args.top))
    return 0


if __name__ == "__main__":
    sys.exit(main())
