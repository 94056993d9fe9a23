"""The budget as a person reads it: figures, labels, and what `/budget` shows."""

from __future__ import annotations

from typing import TYPE_CHECKING

from retinue.team.tally import METRICS, Metric

if TYPE_CHECKING:
    from retinue.team.budget import BudgetStatus

LABELS: dict[Metric, str] = {
    "requests": "requests",
    "input_tokens": "input tokens",
    "output_tokens": "output tokens",
    "total_tokens": "tokens",
    "cost_usd": "USD",
}


def render_figure(metric: Metric, value: float) -> str:
    """`12,300` or `$0.0123`: a figure as a person reads it."""
    return f"${value:,.4f}" if metric == "cost_usd" else f"{int(value):,}"


def render_status(status: BudgetStatus) -> str:
    """What `/budget` shows: used / limit per metric, the breakdown by member, what is left out."""
    usage, limits = status.usage, status.limits
    lines = ["Team budget:" if limits.is_set else "Team budget: no limits set."]
    for metric in METRICS:
        limit = limits.limit_of(metric)
        if limit is None and metric in ("input_tokens", "output_tokens"):
            continue
        used = render_figure(metric, usage.figure(metric))
        allowed = "no limit" if limit is None else render_figure(metric, limit)
        mark = "  (spent)" if limit is not None and usage.figure(metric) >= limit else ""
        lines.append(f"  {LABELS[metric]}: {used} / {allowed}{mark}")
    if usage.unpriced_models:
        lines.append(
            "  The USD figure leaves out models genai-prices has no price for: "
            + ", ".join(usage.unpriced_models)
            + f" ({usage.unpriced_requests:,} requests, counted in tokens only)."
        )
    reserved = status.reserved_requests
    held = f", {reserved:,} requests reserved" if reserved else ""
    lines.append(f"  runs: {usage.runs:,} ({status.in_flight} in flight{held})")
    if status.holders:
        lines.append(
            f"  Waiting for a raise: {', '.join(status.holders)} hold messages the budget refused."
        )
    if usage.by_member:
        lines.append("By member:")
        for name, member in usage.by_member.items():
            lines.append(
                f"  {name}: {member.runs:,} runs, {member.requests:,} requests, "
                f"{member.total_tokens:,} tokens, {render_figure('cost_usd', member.cost_usd)}"
            )
    return "\n".join(lines)
