"""Ablation: the ping-pong (or the fan-out) timed with one kernel feature switched off at a time.

Each variant patches the kernel in this process only and undoes it afterwards; the variants
are interleaved with the full kernel and bare pydantic-ai, and medians reported, so drift
hits them alike. Run it as `python -m benchmarks.profiling --ablate [--window] [--fanout N]`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from benchmarks.profiling import patch_attribute


def _ablations() -> dict[str, Callable[[], list[Callable[[], None]]]]:
    """Each entry switches features off and returns the undo functions."""
    from retinue.actors.actor import Actor
    from retinue.actors.system import ActorSystem
    from retinue.agent.agent import BaseAgent
    from retinue.agent.routing_check import RecipientCheck

    def no_events() -> list[Callable[[], None]]:
        def on_llm_event(self: Any, event: Any) -> None:
            pass  # the runner's usage ledger is kept whether events are published or not

        return [patch_attribute(BaseAgent, "_on_llm_event", on_llm_event)]

    def no_checkpoints() -> list[Callable[[], None]]:
        return [patch_attribute(Actor, "notify_if_changed", lambda self: None)]

    def no_context_updates() -> list[Callable[[], None]]:
        return [patch_attribute(BaseAgent, "_deliver_context_update", lambda self: None)]

    def no_recipient_check() -> list[Callable[[], None]]:
        async def passthrough(self: Any, ctx: Any, state: Any, output: Any) -> Any:
            return output

        return [patch_attribute(RecipientCheck, "after_output_validate", passthrough)]

    def no_member_lookup() -> list[Callable[[], None]]:
        original = BaseAgent.get_team_member
        cache: dict[tuple[int, str], Any] = {}

        def cached(self: Any, name: str) -> Any:
            key = (id(self), name)
            if key not in cache:
                cache[key] = original(self, name)
            return cache[key]

        return [patch_attribute(BaseAgent, "get_team_member", cached)]

    def no_sent_notices() -> list[Callable[[], None]]:
        def route(self: Any, orchestrator: Any, message: Any) -> None:
            if not self.post(message.recipient, message):
                self.dead_letter(message.sender, message.recipient, message)

        return [patch_attribute(ActorSystem, "route", route)]

    def no_reports() -> list[Callable[[], None]]:
        def tell(self: Any, message: Any, flush: bool = False) -> None:
            pass

        return [patch_attribute(Actor, "_tell_orchestrator", tell), *no_sent_notices()]

    singles = {
        "no reports to the orchestrator at all": no_reports,
        "no events to the orchestrator": no_events,
        "no state checkpoints": no_checkpoints,
        "no context updates": no_context_updates,
        "no recipient check": no_recipient_check,
        "member lookup cached (no ask)": no_member_lookup,
        "no SentMessage notices": no_sent_notices,
    }

    def everything() -> list[Callable[[], None]]:
        return [undo for switch in singles.values() for undo in switch()]

    return {**singles, "all of the above off": everything}


def ablate(hops: int, repeats: int, *, window: bool, fanout: int = 0) -> str:
    """Time with each kernel feature switched off, interleaved with the full kernel.

    The scenario is the ping-pong (ms per hop), or with `fanout` the fan-out to that many
    workers (ms of wall time).
    """
    from benchmarks.cases import fanout as fan
    from benchmarks.cases import pingpong
    from benchmarks.measure import median
    from benchmarks.suite import Table, render_table

    def measure(bare: bool) -> float:
        if fanout:
            run = fan.bare_fanout(fanout) if bare else fan.retinue_fanout(fanout)
            return 1e3 * run["seconds"]
        if bare:
            return pingpong.bare_pingpong(hops, window=window, instructions=instructions).mean_ms
        return pingpong.retinue_pingpong(hops, window=window).mean_ms

    warm = pingpong.retinue_pingpong(6, window=window)
    instructions = str(warm.extra["system_block"])
    if fanout:
        fan.retinue_fanout(2)
    variants: dict[str, Callable[[], list[Callable[[], None]]] | None] = {
        "bare pydantic-ai": None,
        "retinue + plugins (everything on)": lambda: [],
        **_ablations(),
    }
    times: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(repeats):
        for name, switch in variants.items():
            undo = switch() if switch is not None else []
            try:
                times[name].append(measure(bare=switch is None))
            finally:
                for step in reversed(undo):
                    step()
    bare = median(times["bare pydantic-ai"])
    full = median(times["retinue + plugins (everything on)"])
    unit = "ms wall" if fanout else "ms/hop"
    scenario = (
        f"fan-out to {fanout}"
        if fanout
        else f"ping-pong, {hops} hops, {'window' if window else 'whole history'}"
    )
    table = Table(
        f"Ablation: {unit} with one kernel feature off ({scenario}, median of {repeats})",
        ["variant", unit, "vs bare", f"saved vs full, {unit}"],
    )
    for name in variants:
        t = median(times[name])
        table.add(name, t, f"{t / bare:.2f}x", None if name == "bare pydantic-ai" else full - t)
    return render_table(table)
