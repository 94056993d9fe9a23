"""Team size: one message to each of N agents, with the team card and without it.

Every agent answers @Human on an instant model. Two rounds: in the first every agent takes
its first turn (its pydantic-ai `Agent` is built, and with the card it is shown the whole
team once, as a full snapshot); in the second every agent gets one more message, with the
team unchanged. The baseline is the same team without the team card (the `team` plugin
blocked), at the same N, in the same run; every (variant, N) runs in a fresh interpreter.

What the card must not add is a cost per turn that grows with N: the ratio card / no card
should stay flat from 10 agents to 1,000, and so should the time per turn. The test
`plugins/team/tests/test_team_scale.py` asserts the work itself (no asks, no copies).
"""

from __future__ import annotations

import math
import time
from typing import Any

from retinue import AgentMessage

from benchmarks.measure import BenchTeam, agent_card, median, run_child
from benchmarks.suite import Case, CaseResult, Scale, Table, Target, ratio

SIZES: dict[str, list[int]] = {"full": [10, 100, 1000], "quick": [10, 100, 300], "tiny": [3]}
REPEATS: dict[str, int] = {"full": 2, "quick": 1, "tiny": 1}
VARIANTS = ("card", "bare")
LABELS = {"card": "with the team card", "bare": "without it (baseline)"}


def measure_variant(size: int, variant: str) -> dict[str, float]:
    """Ms per turn over two rounds of one message to each of `size` agents (child entry)."""
    from benchmarks.cases.spawn import team_plugin_installed

    card = variant == "card"
    if card and not team_plugin_installed():
        return {}
    team = BenchTeam(blocked=() if card else ("team",), ask_timeout=600.0)
    try:
        worker = agent_card("Worker", "answer_human")
        team.register(worker)
        workers = [team.add(worker) for _ in range(size)]
        team.wait_idle()
        figures: dict[str, float] = {}
        for round_ in (1, 2):
            start = time.perf_counter()
            for address in workers:
                team.system.send(address, AgentMessage(content="ping"), sender=team.human)
            team.wait_idle()
            figures[f"round{round_}_ms"] = 1e3 * (time.perf_counter() - start) / size
        if card:
            slot = team.actor(workers[-1]).state.tool_state
            figures["roster_items"] = float(len(slot.baselines.get("Team roster", {})))
        return figures
    finally:
        team.shutdown()


def run(scale: Scale) -> CaseResult:
    sizes, repeats = SIZES[scale], REPEATS[scale]
    result = CaseResult(case="team_size", scale=scale)
    runs: dict[tuple[int, str], list[dict[str, float]]] = {}
    for _ in range(repeats):  # interleaved, so drift hits both variants alike
        for size in sizes:
            for variant in VARIANTS:
                figures: dict[str, Any] = run_child(
                    "benchmarks.cases.team_size:measure_variant", size=size, variant=variant
                )
                runs.setdefault((size, variant), []).append(figures)
    if not runs[(sizes[0], "card")][0]:
        result.notes.append("retinue-team is not installed: only the baseline ran.")

    def med(size: int, variant: str, key: str) -> float:
        return median([r[key] for r in runs[(size, variant)] if key in r])

    table = Table(
        f"One message to each of N agents, two rounds (median of {repeats})",
        [
            "agents N",
            "variant",
            "1st turn ms",
            "vs baseline",
            "2nd turn ms",
            "vs baseline",
            "roster items shown",
        ],
    )
    for size in sizes:
        for variant in VARIANTS:
            first, second = med(size, variant, "round1_ms"), med(size, variant, "round2_ms")
            if math.isnan(first):  # the variant did not run
                continue
            base1, base2 = med(size, "bare", "round1_ms"), med(size, "bare", "round2_ms")
            items = med(size, variant, "roster_items") if variant == "card" else None
            table.add(
                f"{size:,}",
                LABELS[variant],
                first,
                ratio(first / base1),
                second,
                ratio(second / base2),
                None if items is None else int(items),
            )
            result.metrics[f"team_size.{size}.{variant}.round1_ms"] = first
            result.metrics[f"team_size.{size}.{variant}.round2_ms"] = second
    result.tables.append(table)

    largest, smallest = sizes[-1], sizes[0]
    card2 = med(largest, "card", "round2_ms")
    if not math.isnan(card2):
        card1_ratio = med(largest, "card", "round1_ms") / med(largest, "bare", "round1_ms")
        card2_ratio = card2 / med(largest, "bare", "round2_ms")
        growth = card2 / med(smallest, "card", "round2_ms")
        base_growth = med(largest, "bare", "round2_ms") / med(smallest, "bare", "round2_ms")
        result.metrics["team_size.card_vs_bare.round1"] = card1_ratio
        result.metrics["team_size.card_vs_bare.round2"] = card2_ratio
        result.metrics["team_size.card.growth"] = growth
        result.metrics["team_size.bare.growth"] = base_growth
        result.targets.append(
            Target(f"1st turn, card vs baseline, N={largest:,}", card1_ratio, 1.2, "x")
        )
        result.targets.append(
            Target(f"2nd turn, card vs baseline, N={largest:,}", card2_ratio, 1.2, "x")
        )
        result.targets.append(
            Target(
                f"2nd turn with the card, N={largest:,} vs N={smallest:,} (baseline "
                f"{base_growth:.2f}x)",
                growth,
                max(1.2, 1.2 * base_growth),
                "x",
            )
        )
    result.notes.append(
        "A turn is timed from the first message sent to the team falling idle, divided by N; "
        "both variants carry the mailbox card. The roster the card shows has N+1 items (the "
        "person too): that prompt text is the one cost that grows with N, and it is paid in "
        "tokens once per agent, on its first turn."
    )
    return result


CASE = Case("team_size", "A turn's cost as the team grows, with and without the team card", run, 45)
