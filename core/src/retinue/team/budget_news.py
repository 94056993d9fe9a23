"""What a team's budget tells the team: holders woken, the person told once, events kept.

The callbacks the `Orchestrator` gives its `LocalTeamBudget`; each runs in whichever member's
thread charged or raised the budget, so each only sends, never waits.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from retinue.actors.messages import EventMessage
from retinue.team.budget import BudgetBreach, BudgetRaisedMessage, BudgetSpentMessage

if TYPE_CHECKING:
    from pydantic import BaseModel

    from retinue.actors.address import ActorAddress
    from retinue.actors.runtime_api import Runtime
    from retinue.team.view import DirectoryBoard

#: The orchestrator's log lines keep the name they always had.
logger = logging.getLogger("retinue.team.orchestrator")


class BudgetNews:
    """Sends the budget's news as the team's orchestrator (`me`); safe from any thread."""

    def __init__(self, runtime: Runtime, me: ActorAddress, board: DirectoryBoard) -> None:
        self._runtime = runtime
        self._me = me
        self._board = board

    def wake_holders(self, holders: list[ActorAddress]) -> None:
        """Tell each member holding messages that the budget was raised."""
        me = self._me
        for holder in holders:
            news = BudgetRaisedMessage().addressed(me, holder, me.team_id, fresh=True)
            self._runtime.route(me, news)

    def announce_spent(self, member: str, breaches: list[BudgetBreach]) -> None:
        """Have `member`, whose run reached a limit first, tell the person."""
        address = self._board.current.member(member)
        if address is None:  # it has left: the record keeps the `BudgetExhaustedEvent`
            logger.warning("%s reached the team's budget and has left: nobody told", member)
            return
        news = BudgetSpentMessage(breaches=breaches).addressed(
            self._me, address, address.team_id, fresh=True
        )
        self._runtime.route(self._me, news)

    def report(self, event: BaseModel) -> None:
        """Record a budget event as the orchestrator's own."""
        self._runtime.send(self._me, EventMessage(event=event), sender=self._me)
