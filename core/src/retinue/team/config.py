"""`TeamConfig`: an orchestrator's config, the settings of its whole team."""

from __future__ import annotations

from pydantic import Field

from retinue.actors.config import BaseConfig
from retinue.team.budget import TeamUsageLimits
from retinue.team.chains import LoopLimits
from retinue.team.metadata import TeamMetadata

#: How many recent messages an orchestrator keeps in memory unless configured otherwise.
DEFAULT_WINDOW = 1000


class TeamConfig(BaseConfig):
    """An orchestrator's config: its name and role, and the settings of its whole team.

    `budget`: what every member together may spend (no limit by default); `loops`: when a
    task chain counts as a loop and its routing stops (on by default); `metadata`: the
    team's business context. A team file's `[team.budget]`, `[team.loops]`, `[team.metadata]`.
    `window_size`: how many recent messages the orchestrator keeps in memory
    (`get_messages`); the full record goes to the store. `import_path`: folders the team's
    code (scripted models, agent classes) is imported from after the installed packages, a
    team file's own folder; in the team's store metadata, so a resume elsewhere finds it.
    `turn_reports`: every member reports when each turn begins and ends (`ReceivedMessage`,
    `ProcessedMessage`), so an observer sees how long mail queued and was worked on (off by
    default: two reports more per turn, in the window and the record).
    """

    window_size: int = Field(default=DEFAULT_WINDOW, ge=0)
    turn_reports: bool = False

    budget: TeamUsageLimits = Field(default_factory=TeamUsageLimits)
    loops: LoopLimits = Field(default_factory=LoopLimits)
    metadata: TeamMetadata | None = None
    """The team's business context, rendered into every agent's system prompt by the team
    card; a template naming a missing key fails when the config is built."""
    import_path: list[str] = Field(default_factory=list)
