"""The plugin kit: what the kernel's own plugins are built with, for yours.

`retinue` holds every name a team, a card and a hook are written with. These are the pieces
plugins build on beyond that, which a user writing a team never needs:

- `ConfigModel`: a pydantic model whose mistakes are one `ConfigError` line each; every
  `ToolCard` is one, its errors a `ConfigValidationError` (also pydantic's
  `ValidationError`).
- `tool_answer`: a tool's action run so that a refusal the model can correct is a
  `ModelRetry` while the run's retries remain, then the tool's answer.
- `TeamService`, `TeamServiceConfig`, `TeamServices`, `service_key`: an actor a team has one
  of (a task board, a scheduler), attached to the team's orchestrator and found by key in
  its runtime's registry (`Runtime.services`); `ServiceSlot`, where a card keeps the handle
  of its team's service, opened on first use and let go when the card is unbound;
  `PublishingService`, `Published`, `PublishedHandle`, `VersionedState`, `open_published`:
  such a service whose state any thread reads without asking it (a board in every context).
- `Cause`, `cause_of`: the task chain and the message what a card does belongs to (the
  message its agent is handling), for the events and the messages that record it.
- `clean_line`, `clean_block`: text an agent wrote, without control or invisible characters,
  as one line (a name, a title) or as a block of lines, before other agents read it.
- `neutralize`: text with every message fence escaped, for other parties' words a plugin
  shows a model; `fence`: such words inside the kernel's fence, a line of the plugin's
  before them (a web page, a search result: content that must not speak for anyone).
- `shown`, `redact_address`, `RedactingFilter`: a value quoted in an error message, at a
  bounded length; an address without its credentials; a logging filter that redacts them.
  `http_url`: a URL setting checked as http:// or https:// with a host.
- `NO_RUN_IN_PROGRESS`: the kernel's answer to a `/stop` that finds no run to stop.
- `collect_panel_classes`: the panels the installed plugins provide, by name.
- `REQUEST_TIMEOUT`, `uvicorn_server`, `sigterm_as_interrupt`: serving HTTP from a command
  a plugin adds to `retinue`; `TokenGate`, `new_token`: the token every request to a served
  team carries; `add_serve_command`, `load_served_team`: a `retinue PROTOCOL serve
  TEAM.toml` command, its shared options, and the team file it serves.

A face over the layers that hold these: each name loads on first use, so importing this
package costs nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from retinue._lazy import by_name, lazy_exports

if TYPE_CHECKING:
    from retinue.actors.redaction import RedactingFilter as RedactingFilter
    from retinue.actors.redaction import redact_address as redact_address
    from retinue.actors.services import TeamServices as TeamServices
    from retinue.agent.cancel import NO_RUN_IN_PROGRESS as NO_RUN_IN_PROGRESS
    from retinue.cli.serve_command import add_serve_command as add_serve_command
    from retinue.cli.serve_command import load_served_team as load_served_team
    from retinue.cli.serving import REQUEST_TIMEOUT as REQUEST_TIMEOUT
    from retinue.cli.serving import sigterm_as_interrupt as sigterm_as_interrupt
    from retinue.cli.serving import uvicorn_server as uvicorn_server
    from retinue.cli.token_gate import TokenGate as TokenGate
    from retinue.cli.token_gate import new_token as new_token
    from retinue.llm.framing import fence as fence
    from retinue.llm.framing import neutralize as neutralize
    from retinue.plugins.collect import collect_panel_classes as collect_panel_classes
    from retinue.team.publication import Published as Published
    from retinue.team.published import PublishedHandle as PublishedHandle
    from retinue.team.published import PublishingService as PublishingService
    from retinue.team.published import VersionedState as VersionedState
    from retinue.team.published import open_published as open_published
    from retinue.team.team_service import TeamService as TeamService
    from retinue.team.team_service import TeamServiceConfig as TeamServiceConfig
    from retinue.team.team_service import service_key as service_key
    from retinue.tools.agent_text import clean_block as clean_block
    from retinue.tools.agent_text import clean_line as clean_line
    from retinue.tools.answers import tool_answer as tool_answer
    from retinue.tools.cause import Cause as Cause
    from retinue.tools.cause import cause_of as cause_of
    from retinue.tools.service_slot import ServiceSlot as ServiceSlot
    from retinue.urls import http_url as http_url
    from retinue.validation import ConfigModel as ConfigModel
    from retinue.validation import ConfigValidationError as ConfigValidationError
    from retinue.validation import shown as shown

_LAZY = by_name(
    {
        "retinue.actors.redaction": ("RedactingFilter", "redact_address"),
        "retinue.actors.services": ("TeamServices",),
        "retinue.validation": ("ConfigModel", "ConfigValidationError", "shown"),
        "retinue.urls": ("http_url",),
        "retinue.agent.cancel": ("NO_RUN_IN_PROGRESS",),
        "retinue.cli.serve_command": ("add_serve_command", "load_served_team"),
        "retinue.cli.serving": ("REQUEST_TIMEOUT", "sigterm_as_interrupt", "uvicorn_server"),
        "retinue.cli.token_gate": ("TokenGate", "new_token"),
        "retinue.llm.framing": ("fence", "neutralize"),
        "retinue.plugins.collect": ("collect_panel_classes",),
        "retinue.team.publication": ("Published",),
        "retinue.team.published": (
            "PublishedHandle",
            "PublishingService",
            "VersionedState",
            "open_published",
        ),
        "retinue.team.team_service": ("TeamService", "TeamServiceConfig", "service_key"),
        "retinue.tools.agent_text": ("clean_block", "clean_line"),
        "retinue.tools.answers": ("tool_answer",),
        "retinue.tools.cause": ("Cause", "cause_of"),
        "retinue.tools.service_slot": ("ServiceSlot",),
    }
)

__all__ = list(_LAZY)  # mypy reads the `X as X` imports above

if not TYPE_CHECKING:  # hidden from type checkers, so an unknown name is an error there
    __getattr__ = lazy_exports(__name__, _LAZY)
