"""The team budget as an agent meets it: refused messages held, the person told, `/budget`.

When the team's budget refuses a run, the message that wanted it is held, not failed: a team
left running overnight that spends its budget waits, and loses nothing, until the person
raises it (`/budget raise ...`); every held message is then handled in the order it arrived.
The member whose run first reaches a limit (or is refused first) tells the person, once,
with the figures, when the budget sends it a `BudgetSpentMessage`. `/budget` is a kernel
command of every agent, so it works sent to any of them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

from retinue.actors.messages import Message
from retinue.team.budget import (
    LABELS,
    METRICS,
    BudgetBreach,
    BudgetExhaustedEvent,
    LimitsChange,
    TeamBudget,
    render_figure,
    render_status,
)

BudgetAction = Literal["show", "raise", "set"]
IntLimit = int | Literal["off"] | None
UsdLimit = float | Literal["off"] | None

_FIELDS = {
    "requests": "request_limit",
    "tokens": "total_tokens_limit",
    "input_tokens": "input_tokens_limit",
    "output_tokens": "output_tokens_limit",
    "usd": "cost_limit_usd",
}


class HeldMessages:
    """Messages the team's budget refused, in arrival order, until the budget is raised."""

    def __init__(self) -> None:
        self._messages: list[Message] = []

    def add(self, message: Message) -> None:
        self._messages.append(message)

    def take(self) -> list[Message]:
        """Every held message, oldest first; none is held afterwards."""
        taken, self._messages = self._messages, []
        return taken

    @property
    def ids(self) -> list[str]:
        return [message.id for message in self._messages]

    def __len__(self) -> int:
        return len(self._messages)


def exhausted_notice(breaches: Sequence[BudgetBreach], budget: TeamBudget) -> str:
    """The one line the person reads when a limit of the team's budget is first reached."""
    figures = "; ".join(str(item) for item in breaches)
    usage = budget.status().usage
    left_out = (
        f" The USD figure leaves out {', '.join(usage.unpriced_models)} (no known price)."
        if usage.unpriced_models and budget.limits.cost_limit_usd is not None
        else ""
    )
    return (
        f"The team's budget is spent ({figures}). The team starts no new run: messages that "
        "arrive are held, not lost, and handled after a raise, e.g. `/budget raise "
        f"requests=100 tokens=100000 usd=1`; `/budget` shows the figures.{left_out}"
    )


def exhausted_event(breaches: Sequence[BudgetBreach], member: str) -> BudgetExhaustedEvent:
    return BudgetExhaustedEvent(breaches=list(breaches), refused_member=member)


def budget_command(
    budget: TeamBudget,
    who: str,
    action: BudgetAction,
    amounts: Mapping[str, int | float | str | None],
) -> str:
    """What `/budget` does and answers: show, raise by, or set the team's limits."""
    given = {name: value for name, value in amounts.items() if value is not None}
    if action == "show":
        if given:
            return "/budget: say `raise` or `set` before the amounts (`/budget raise tokens=1000`)."
        return render_status(budget.status())
    if not given:
        names = ", ".join(f"{name}=..." for name in _FIELDS)
        return f"/budget {action}: name at least one of {names}."
    off = {_FIELDS[name] for name, value in given.items() if value == "off"}
    if off and action == "raise":
        return "/budget raise: `off` switches a limit off; use `/budget set tokens=off`."
    for name, value in given.items():
        if isinstance(value, int | float) and value <= 0:
            extra = " (or `off`)" if action == "set" else ""
            return f"/budget {action}: {name} must be above 0{extra}, got {value:g}."
    numbers = {_FIELDS[name]: value for name, value in given.items() if value != "off"}
    change = LimitsChange.model_validate({**numbers, "off": off})
    before = budget.limits
    note = ""
    if action == "raise":
        skipped = [name for name in given if getattr(before, _FIELDS[name]) is None]
        if skipped:
            note = f" {', '.join(skipped)}: no limit was set, so none was raised (use `set`)."
        limits = budget.raise_limits(change, changed_by=who)
    else:
        limits = budget.set_limits(change.applied(before), changed_by=who)
    spent = budget.status().breaches
    after = (
        "Still spent: " + "; ".join(str(item) for item in spent) + "; held messages wait."
        if spent
        else "Runs may start again; held messages are handled now."
    )
    shown = [
        f"{LABELS[metric]} {render_figure(metric, limit)}"
        for metric in METRICS
        if (limit := limits.limit_of(metric)) is not None
    ]
    verb = "raised" if action == "raise" else "set"
    return f"Team budget {verb}: {', '.join(shown) or 'no limits'}. {after}{note}"
