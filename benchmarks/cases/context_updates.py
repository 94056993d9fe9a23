"""Context updates: one `ContextUpdater.compose` as the team's shared state grows.

Two keyed providers of N items each — a roster (`@MemberI: Worker (idle)`) and a
planning-board-like one (`TI: title, status, owner`), standing in for the planning plugin —
composed over a history of H messages (the updater scans the history for the markers of
earlier blocks). Three kinds of call:

- full: no baselines yet (a first turn, or after compaction or /clear): the whole state;
- delta: one item changed in each provider since the last block;
- unchanged: nothing changed, no block.

Each is measured twice: with providers that answer plain dicts (copied and compared whole
on every turn) and with providers that answer `FrozenMap`s, as retinue-team's roster and
role profiles do (the same object while nothing changed, an evolved version after a
change: an identity check, or only the changed keys).

The yardstick is one bare pydantic-ai run on an instant model with a 21-message history,
measured in the same process: the share of a model call the update costs. A real model
call is a hundred times longer than that run.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextContent,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from retinue import FrozenMap
from retinue.tools.context_updates import ContextUpdater
from retinue.tools.state import ToolState

from benchmarks import scripts
from benchmarks.measure import bare_agent, median
from benchmarks.suite import Case, CaseResult, Scale, Table, Target

ITEMS: dict[str, list[int]] = {"full": [10, 100, 1000], "quick": [10, 100, 1000], "tiny": [10]}
HISTORY: dict[str, list[int]] = {"full": [21, 1002], "quick": [21, 1002], "tiny": [21]}
BATCHES = 5
MIN_BATCH_SECONDS: dict[str, float] = {"full": 0.1, "quick": 0.02, "tiny": 0.002}


def providers(items: int, version: int = 0) -> dict[str, Callable[[], Mapping[str, str]]]:
    """A roster and a board of `items` entries; `version` changes item 0 of each."""
    roster = {f"@Member{i}": "Worker (idle)" for i in range(items)}
    board = {
        f"T{i}": f"Implement part {i} of the feature — open, owner @Member{i % 7}"
        for i in range(items)
    }
    if version:
        roster["@Member0"] = "Worker (busy)"
        board["T0"] = f"Implement part 0 of the feature — in progress (v{version})"
    return {"Team roster": lambda: roster, "Planning board": lambda: board}


_FROZEN: dict[int, tuple[FrozenMap[str, str], FrozenMap[str, str]]] = {}


def frozen_providers(items: int, version: int = 0) -> dict[str, Callable[[], Mapping[str, str]]]:
    """The same state as `providers`, as `FrozenMap`s; `version` 1 is evolved from 0."""
    if items not in _FROZEN:
        plain = providers(items)
        _FROZEN[items] = (FrozenMap(plain["Team roster"]()), FrozenMap(plain["Planning board"]()))
    roster, board = _FROZEN[items]
    if version:
        changed = providers(items, version)
        roster = roster.evolve(put={"@Member0": changed["Team roster"]()["@Member0"]})
        board = board.evolve(put={"T0": changed["Planning board"]()["T0"]})
    return {"Team roster": lambda: roster, "Planning board": lambda: board}


def history(messages: int, block: TextContent | None = None) -> list[ModelMessage]:
    """About `messages` messages of turns as a run leaves them, optionally after a block.

    Each turn is a prompt, an output-tool call and its return, like a structured-output run.
    """
    out: list[ModelMessage] = []
    if block is not None:
        out.append(ModelRequest(parts=[UserPromptPart(content=[block])]))
    args = {"messages": [{"recipient": "@Ping", "message_type": "request", "message": "x"}]}
    for i in range(max(1, messages // 3)):
        prompt = f"Incoming request from @Ping.\n\nhop {i}/9999"
        out.append(ModelRequest(parts=[UserPromptPart(content=prompt)]))
        call = ToolCallPart(tool_name="final_result", args=args, tool_call_id=f"call-{i}")
        out.append(ModelResponse(parts=[call]))
        done = ToolReturnPart(
            tool_name="final_result", content="Final result processed.", tool_call_id=f"call-{i}"
        )
        out.append(ModelRequest(parts=[done]))
    return out


def copy_slot(slot: ToolState) -> ToolState:
    """An independent copy, made fast (no validation): compose mutates its slot."""
    return ToolState.model_construct(
        last_block=slot.last_block,
        chain_start=slot.chain_start,
        baselines=dict(slot.baselines),  # the snapshots themselves never change
        unavailable=list(slot.unavailable),
    )


def time_compose(
    updater_for: Callable[[Callable[[], ToolState]], ContextUpdater],
    template: ToolState,
    conversation: list[ModelMessage],
    min_seconds: float,
) -> float:
    """Seconds per `compose`, each on a fresh copy of `template` (copies made untimed)."""
    calls = 1
    per_call: list[float] = []
    slots: list[ToolState] = []

    def current() -> ToolState:
        return slots[-1]

    updater = updater_for(current)
    while len(per_call) < BATCHES:
        slots = [copy_slot(template) for _ in range(calls)]
        start = time.perf_counter()
        for _ in range(calls):
            updater.compose(conversation)
            slots.pop()
        elapsed = time.perf_counter() - start
        if elapsed < min_seconds and not per_call:
            calls *= 4
            continue
        per_call.append(elapsed / calls)
    return median(per_call)


def delivered_full(items: int, frozen: bool = False) -> tuple[TextContent, ToolState]:
    """The full block a first turn delivers, and the slot as it is left afterwards."""
    slot = ToolState()
    make = frozen_providers if frozen else providers
    block = ContextUpdater(make(items), lambda: slot).compose([])
    assert block is not None
    return block, slot


def updater_factory(
    items: int, version: int, frozen: bool = False
) -> Callable[[Callable[[], ToolState]], ContextUpdater]:
    make = frozen_providers if frozen else providers
    return lambda getter: ContextUpdater(make(items, version), getter)


def bare_run_seconds(runs: int = 60) -> float:
    """One bare pydantic-ai run with a 21-message history on an instant model (median)."""
    agent = bare_agent(scripts.silent)
    past = history(21)

    async def measure() -> list[float]:
        await agent.run("warm-up", message_history=past)
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            await agent.run("Incoming request from @Ping.\n\nhop 1/2", message_history=past)
            times.append(time.perf_counter() - start)
        return times

    return median(asyncio.run(measure()))


def run(scale: Scale) -> CaseResult:
    result = CaseResult(case="context_updates", scale=scale)
    min_seconds = MIN_BATCH_SECONDS[scale]
    bare = bare_run_seconds(60 if scale != "tiny" else 5)
    table = Table(
        "ContextUpdater.compose per call: two keyed providers of N items, H messages of history",
        [
            "items N",
            "history H",
            "full µs",
            "delta µs",
            "unchanged µs",
            "full / bare run",
            "delta / bare run",
            "block chars (full)",
        ],
    )
    frozen_table = Table(
        "The same, with the providers answering FrozenMaps (as retinue-team does)",
        ["items N", "history H", "delta µs", "unchanged µs", "delta / bare run"],
    )
    worst = worst_frozen = 0.0
    for items in ITEMS[scale]:
        for messages in HISTORY[scale]:
            first, delivered = delivered_full(items)
            conversation = history(messages, block=first)
            full = time_compose(
                updater_factory(items, 0), ToolState(), history(messages), min_seconds
            )
            delta = time_compose(updater_factory(items, 1), delivered, conversation, min_seconds)
            same = time_compose(updater_factory(items, 0), delivered, conversation, min_seconds)
            table.add(
                items,
                messages,
                1e6 * full,
                1e6 * delta,
                1e6 * same,
                f"{100 * full / bare:.1f}%",
                f"{100 * delta / bare:.1f}%",
                len(first.content),
            )
            key = f"n{items}.h{messages}"
            result.metrics[f"{key}.full_us"] = 1e6 * full
            result.metrics[f"{key}.delta_us"] = 1e6 * delta
            result.metrics[f"{key}.unchanged_us"] = 1e6 * same

            _, frozen_slot = delivered_full(items, frozen=True)
            f_delta = time_compose(
                updater_factory(items, 1, frozen=True), frozen_slot, conversation, min_seconds
            )
            f_same = time_compose(
                updater_factory(items, 0, frozen=True), frozen_slot, conversation, min_seconds
            )
            frozen_table.add(
                items, messages, 1e6 * f_delta, 1e6 * f_same, f"{100 * f_delta / bare:.1f}%"
            )
            result.metrics[f"{key}.frozen_delta_us"] = 1e6 * f_delta
            result.metrics[f"{key}.frozen_unchanged_us"] = 1e6 * f_same
            if messages == min(HISTORY[scale]):
                worst = max(worst, delta / bare)
                worst_frozen = max(worst_frozen, f_delta / bare)
    result.metrics["bare_run_us"] = 1e6 * bare
    result.tables.append(table)
    result.tables.append(frozen_table)
    result.targets.append(
        Target(
            "delta compose vs one bare instant run, 21-message history (largest N)",
            100 * worst,
            10.0,
            "%",
        )
    )
    result.targets.append(
        Target(
            "the same, FrozenMap providers (largest N)",
            100 * worst_frozen,
            10.0,
            "%",
        )
    )
    result.notes.append(
        f"Bare pydantic-ai run (instant model, 21-message history): {1e6 * bare:.0f} µs. "
        "A full block is what a first turn, a compaction or /clear costs; every other turn "
        "pays 'delta' or 'unchanged'. The 10% goal is ours (the brief names none)."
    )
    return result


CASE = Case("context_updates", "ContextUpdater.compose as roster and board grow", run, order=50)
