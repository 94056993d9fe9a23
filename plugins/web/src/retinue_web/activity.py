"""What each agent is doing inside a run right now: a model request, or which tool call.

The record says when a run starts and ends, but a run's inner steps reach it only when the
run is over. So retinue-web gives every agent one small pydantic-ai capability (through the
`retinue_capabilities` hook) that notes on a board, in this process, when a model request or
a tool call begins and ends. The web view reads the board of the team it shows; a team in
another process shows `working` without the detail. Noting costs two dictionary writes per
step, and nothing is recorded.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any

from pydantic_ai import RunContext
from retinue import SharedCapability


@dataclass(frozen=True)
class Step:
    """One step in flight: `model` (a model request) or `tool` (with the tool's name)."""

    kind: str
    detail: str
    since: float


class ActivityBoard:
    """Steps in flight by team id and member name; safe from any thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._steps: dict[str, dict[str, dict[int, Step]]] = {}

    def begin(self, team_id: str, member: str, key: int, step: Step) -> None:
        with self._lock:
            self._steps.setdefault(team_id, {}).setdefault(member, {})[key] = step

    def end(self, team_id: str, member: str, key: int) -> None:
        with self._lock:
            team = self._steps.get(team_id, {})
            steps = team.get(member)
            if steps is None:
                return
            steps.pop(key, None)
            if not steps:
                del team[member]
                if not team:
                    del self._steps[team_id]

    def of_team(self, team_id: str) -> dict[str, dict[str, str]]:
        """Each busy member's latest step: `{"@Dev": {"kind": "tool", "detail": "..."}}`."""
        with self._lock:
            team = self._steps.get(team_id, {})
            found = {}
            for member, steps in team.items():
                latest = max(steps.values(), key=lambda step: step.since)
                found[member] = {"kind": latest.kind, "detail": latest.detail}
            return found


#: The board of this process: every agent's capability notes on it.
BOARD = ActivityBoard()


def _where(ctx: RunContext[Any]) -> tuple[str, str] | None:
    address = getattr(ctx.deps, "myAddress", None)
    team_id = getattr(address, "team_id", None)
    name = getattr(address, "name", None)
    if isinstance(team_id, str) and isinstance(name, str):
        return team_id, name
    return None


class ActivityCapability(SharedCapability):
    """Notes each model request and tool call of its agent's runs on `BOARD` while it lasts.

    It keeps nothing of its own (the agent is the run's `ctx.deps`), so one instance,
    `ACTIVITY`, serves every agent and they keep sharing their pydantic-ai agent.
    """

    async def wrap_model_request(
        self, ctx: RunContext[Any], *, request_context: Any, handler: Any
    ) -> Any:
        return await self._noted(
            ctx, Step("model", "a model request", time.monotonic()), handler, request_context
        )

    async def wrap_tool_execute(
        self, ctx: RunContext[Any], *, call: Any, tool_def: Any, args: Any, handler: Any
    ) -> Any:
        name = getattr(call, "tool_name", "a tool")
        return await self._noted(
            ctx, Step("tool", f"calling {name}", time.monotonic()), handler, args
        )

    async def _noted(self, ctx: RunContext[Any], step: Step, handler: Any, argument: Any) -> Any:
        where = _where(ctx)
        if where is None:
            return await handler(argument)
        key = id(step)
        BOARD.begin(*where, key, step)
        try:
            return await handler(argument)
        finally:
            BOARD.end(*where, key)


#: The one capability every agent is given (`hooks.retinue_capabilities`).
ACTIVITY = ActivityCapability()
