"""Helpers for the planning tests: roles that carry the board, and reading what they saw."""

from __future__ import annotations

from typing import Any

from retinue import ActorAddress, AgentCard
from retinue.testing import TeamHarness, call_directive, context_section, scripted_card
from retinue_planning import SECTION, PlanningBoardState, PlanningTool, team_board

FULL = "— current state."
DELTA = "— state has changed since the last update."


def planner(role: str, **settings: Any) -> AgentCard:
    """A role on the `follow` model whose agent carries the planning card."""
    card: PlanningTool | str = PlanningTool(**settings) if settings else "planning"
    return scripted_card(role, tools=[card])


def create(team: TeamHarness, member: ActorAddress, *titles: str) -> None:
    """`member` adds a task of each title with its model's tool; the team works until quiet."""
    tasks = {"tasks": [{"title": title} for title in titles]}
    team.say(member, call_directive("planning_create_tasks", tasks))
    team.wait_idle(20)


def board_of(team: TeamHarness) -> PlanningBoardState:
    """The team's board as its actor published it last."""
    return team_board(team.system, team.orchestrator).current


def planning_section(text: str) -> str | None:
    """The Planning board section of a context update, or None."""
    return context_section(text, SECTION)
