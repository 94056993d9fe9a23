"""The team budget as an agent meets it: refused messages held, the person told, `/budget`.

When the team's budget refuses a run, the message that wanted it is held, not failed: a team
left running overnight that spends its budget waits, and loses nothing, until the person
raises it (`/budget raise ...`); every held message is then handled in the order it arrived.
The member whose run first reaches a limit (or is refused first) tells the person, once,
with the figures, when the budget sends it a `BudgetSpentMessage`. `/budget` is a kernel
command of every agent, so it works sent to any of them.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, Protocol

from retinue.actors.address import ActorAddress
from retinue.actors.messages import Message
from retinue.agent.config import AgentState
from retinue.team.budget import (
    BudgetBreach,
    BudgetExhaustedEvent,
    BudgetRaisedMessage,
    LimitsChange,
    TeamBudget,
)
from retinue.team.budget_report import LABELS, render_figure, render_status
from retinue.team.tally import METRICS

if TYPE_CHECKING:
    from retinue.actors.runtime_api import Runtime
    from retinue.llm.errors import TeamBudgetExhaustedError
    from retinue.team.view import Team

logger = logging.getLogger(__name__)

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


class BudgetHost(Protocol):
    """What `BudgetHold` needs of its agent; `BaseAgent` is one."""

    myAddress: ActorAddress
    state: AgentState

    @property
    def team(self) -> Team | None: ...

    @property
    def system(self) -> Runtime: ...

    @property
    def current_message(self) -> Message | None: ...

    def send(self, recipient: ActorAddress, message: Message) -> None: ...

    def notify_event(self, event: Any) -> None: ...

    def notify_human(self, text: str) -> None: ...


class BudgetHold:
    """One agent's side of the team's budget: the messages it refused held, the person told
    when this agent's run reached a limit first, and the `/budget` command."""

    def __init__(self, host: BudgetHost) -> None:
        self._host = host
        #: Messages the team's budget refused, handled after the person raises it.
        self._held = HeldMessages()

    def team_budget(self) -> TeamBudget | None:
        """The team's budget; None outside any team."""
        team = self._host.team
        return team.budget if team is not None else None

    def hold(self, message: Message, refusal: TeamBudgetExhaustedError) -> None:
        """Keep a message the team's budget refused (the budget has the person told)."""
        host = self._host
        self._held.add(message)
        host.state.budget_held = self._held.ids
        budget = self.team_budget()
        if budget is None:
            return
        if not budget.hold(host.myAddress):  # room again since the refusal: go on at once
            host.send(host.myAddress, BudgetRaisedMessage())
            return
        logger.info("%s holds %s: %s", host.myAddress.name, type(message).__name__, refusal)

    def spent(self, breaches: Sequence[BudgetBreach]) -> None:
        """This member's run reached a limit of the team's budget first: tell the person."""
        host = self._host
        budget = self.team_budget()
        if budget is not None:
            host.notify_event(exhausted_event(breaches, host.myAddress.name))
            host.notify_human(exhausted_notice(breaches, budget))

    def release(self) -> list[Message]:
        """The budget was raised: every held message, oldest first, for its turn again."""
        held = self._held.take()
        self._host.state.budget_held = []
        return held

    def stopped(self) -> None:
        """The agent stops: what it still holds is news when it is fired (a shutdown stops
        every holder anyway); the messages stay in the record."""
        held = self._held
        if not len(held):
            return
        host = self._host
        logger.log(
            logging.INFO if host.system.shutting_down else logging.WARNING,
            "%s stopped holding %d message(s) the team's budget refused; they stay in "
            "the record (ids %s)",
            host.myAddress.name,
            len(held),
            ", ".join(held.ids),
        )

    def budget(
        self,
        action: BudgetAction = "show",
        *,
        requests: IntLimit = None,
        tokens: IntLimit = None,
        usd: UsdLimit = None,
        input_tokens: IntLimit = None,
        output_tokens: IntLimit = None,
    ) -> str:
        """The team's budget: used / limit, by member; `raise` adds to limits, `set` sets them.

        `/budget raise tokens=100000 usd=2` adds to the limits; `/budget set requests=500`
        sets one, `/budget set usd=off` switches one off. A raise lets held messages run.
        """
        budget = self.team_budget()
        if budget is None:
            return "/budget: this agent is not in a team, so there is no team budget."
        current = self._host.current_message
        who = current.sender.name if current is not None and current.sender else "code"
        amounts = {
            "requests": requests,
            "tokens": tokens,
            "usd": usd,
            "input_tokens": input_tokens,
            "output_tokens": output_tokens,
        }
        return budget_command(budget, who, action, amounts)


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
