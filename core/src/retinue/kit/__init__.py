"""The plugin kit: what the kernel's own plugins are built with, for yours.

`retinue` holds every name a team, a card and a hook are written with. These are the pieces
plugins build on beyond that, which a user writing a team never needs:

- `ConfigModel`: a pydantic model whose mistakes are one `ConfigError` line each; a card
  lists it before `ToolCard` (`class MyTool(ConfigModel, ToolCard)`) to report its
  settings so.
- `tool_answer`: a tool's action run so that a refusal the model can correct is a
  `ModelRetry` while the run's retries remain, then the tool's answer.
- `TeamService`, `TeamServiceConfig`, `TeamServices`, `service_key`: an actor a team has one
  of (a task board, a scheduler), attached to the team's orchestrator and found by key in
  its runtime's registry (`Runtime.services`).
- `neutralize`: text with every message fence escaped, for other parties' words a plugin
  shows a model.
- `shown`, `redact_address`, `RedactingFilter`: a value quoted in an error message, at a
  bounded length; an address without its credentials; a logging filter that redacts them.
- `NO_RUN_IN_PROGRESS`: the kernel's answer to a `/stop` that finds no run to stop.
- `collect_panel_classes`: the panels the installed plugins provide, by name.
- `REQUEST_TIMEOUT`, `uvicorn_server`, `sigterm_as_interrupt`: serving HTTP from a command
  a plugin adds to `retinue`.

A face over the layers that hold these: each name loads on first use, so importing this
package costs nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from retinue._lazy import lazy_exports

if TYPE_CHECKING:
    from retinue.actors.redaction import RedactingFilter, redact_address
    from retinue.actors.services import TeamServices
    from retinue.actors.validation import ConfigModel, shown
    from retinue.agent.cancel import NO_RUN_IN_PROGRESS
    from retinue.cli.serving import REQUEST_TIMEOUT, sigterm_as_interrupt, uvicorn_server
    from retinue.llm.framing import neutralize
    from retinue.plugins.collect import collect_panel_classes
    from retinue.team.team_service import TeamService, TeamServiceConfig, service_key
    from retinue.tools.answers import tool_answer

_LAZY = {
    "ConfigModel": "retinue.actors.validation",
    "NO_RUN_IN_PROGRESS": "retinue.agent.cancel",
    "REQUEST_TIMEOUT": "retinue.cli.serving",
    "RedactingFilter": "retinue.actors.redaction",
    "TeamService": "retinue.team.team_service",
    "TeamServiceConfig": "retinue.team.team_service",
    "TeamServices": "retinue.actors.services",
    "collect_panel_classes": "retinue.plugins.collect",
    "neutralize": "retinue.llm.framing",
    "redact_address": "retinue.actors.redaction",
    "service_key": "retinue.team.team_service",
    "shown": "retinue.actors.validation",
    "sigterm_as_interrupt": "retinue.cli.serving",
    "tool_answer": "retinue.tools.answers",
    "uvicorn_server": "retinue.cli.serving",
}

__all__ = [
    "NO_RUN_IN_PROGRESS",
    "REQUEST_TIMEOUT",
    "ConfigModel",
    "RedactingFilter",
    "TeamService",
    "TeamServiceConfig",
    "TeamServices",
    "collect_panel_classes",
    "neutralize",
    "redact_address",
    "service_key",
    "shown",
    "sigterm_as_interrupt",
    "tool_answer",
    "uvicorn_server",
]

if not TYPE_CHECKING:  # hidden from type checkers, so an unknown name is an error there
    __getattr__ = lazy_exports(__name__, _LAZY)
