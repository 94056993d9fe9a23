"""retinue-planning: one task board per team, shared by its agents and kept in their context."""

from retinue_planning.board import (
    BoardHandle,
    BoardReply,
    PlanningBoard,
    PlanningBoardConfig,
    open_board,
    team_board,
)
from retinue_planning.card import SECTION, SYSTEM_PROMPT, PlanningResult, PlanningTool
from retinue_planning.errors import PlanningError
from retinue_planning.events import PlanningChangedEvent, rebuild_board
from retinue_planning.search import PlanningSearch
from retinue_planning.state import PlanningBoardState
from retinue_planning.tasks import (
    NewTask,
    PlanningNote,
    PlanningTask,
    TaskChanges,
    TaskStatus,
)

__all__ = [
    "SECTION",
    "SYSTEM_PROMPT",
    "BoardHandle",
    "BoardReply",
    "NewTask",
    "PlanningBoard",
    "PlanningBoardConfig",
    "PlanningBoardState",
    "PlanningChangedEvent",
    "PlanningError",
    "PlanningNote",
    "PlanningResult",
    "PlanningSearch",
    "PlanningTask",
    "PlanningTool",
    "TaskChanges",
    "TaskStatus",
    "open_board",
    "rebuild_board",
    "team_board",
]
