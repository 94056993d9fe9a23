"""The per-agent usage table `/usage` prints."""

from __future__ import annotations

from collections.abc import Mapping

from rich.table import Table

from retinue.llm.usage import AgentUsageSummary


def _cost(cost: float | None) -> str:
    return "?" if cost is None else f"${cost:.4f}"


def usage_table(usage: Mapping[str, AgentUsageSummary]) -> Table:
    """One row per agent, and a total row: runs, requests, tokens in and out, cost.

    A cost is `?` where the model's price is unknown (scripted models, most local ones);
    the total's cost sums the known ones, and says so with a `+` when some were unknown.
    """
    table = Table(
        title="usage (tokens: input, output, total)",
        title_justify="left",
        show_edge=False,
        pad_edge=False,
    )
    table.add_column("agent")
    for column in ("runs", "requests", "input", "output", "total", "cost"):
        table.add_column(column, justify="right")
    total = AgentUsageSummary()
    unknown = False
    for name, summary in usage.items():
        table.add_row(
            name,
            str(summary.runs),
            str(summary.requests),
            str(summary.input_tokens),
            str(summary.output_tokens),
            str(summary.total_tokens),
            _cost(summary.cost_usd),
        )
        total.runs += summary.runs
        total.requests += summary.requests
        total.input_tokens += summary.input_tokens
        total.output_tokens += summary.output_tokens
        total.total_tokens += summary.total_tokens
        if summary.cost_usd is None:
            unknown = unknown or summary.requests > 0
        else:
            total.cost_usd = (total.cost_usd or 0.0) + summary.cost_usd
    if len(usage) > 1:
        cost = _cost(total.cost_usd)
        if unknown and total.cost_usd is not None:
            cost += "+"
        table.add_section()
        table.add_row(
            "total",
            str(total.runs),
            str(total.requests),
            str(total.input_tokens),
            str(total.output_tokens),
            str(total.total_tokens),
            cost,
        )
    return table
