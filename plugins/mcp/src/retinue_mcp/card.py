"""`McpTool`: one MCP server's tools, given to an agent through the card's toolsets.

One card per server; an agent may hold several (`card_key` tells them apart by server).
Each agent that holds the card gets its own session (a stdio server: its own process),
opened by its first run and closed when it stops.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import Field, PrivateAttr, field_validator
from retinue import ToolCard

from retinue_mcp.connection import McpConnection

if TYPE_CHECKING:  # the MCP client loads when an agent binds the card, not with the plugin
    from pydantic_ai.mcp import MCPToolset
    from pydantic_ai.toolsets import AbstractToolset

    from retinue_mcp.toolset import ServerToolset

MAX_TIMEOUT = 24 * 3600.0
MAX_RESULT_CHARS = 100_000
"""The default cap on one result: the workspace card's `max_read_chars`, so both read alike."""

ToolErrors = Literal["retry", "failed"]
"""What a tool error the server reports becomes: a retry prompt (it counts against the
agent's tool retries) or a failed result the model reads and adapts to."""
_PREFIX = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")


class McpTool(ToolCard):
    """The tools of one MCP server (stdio or HTTP), through pydantic-ai's `MCPToolset`.

    `server` names it in messages, logs and the card's key (default: the connection's
    command line or address). `tool_prefix` puts `PREFIX_` before each tool's name (two
    servers with a `search` tool each). `tools` keeps only the named tools of the server.
    `connect_timeout` bounds starting the server and the handshake; `call_timeout` one
    request. `tool_errors` is what an error reported by a tool becomes: `retry` (a retry
    prompt, counted against the agent's tool retries) or `failed` (a failed result).
    `include_instructions` adds the server's own instructions to the agent's: only for a
    server you trust, as the model reads them as yours. `max_result_chars` caps what one
    call's result shows the model (the rest is cut, and the model told so in one line).
    """

    name: ClassVar[str] = "mcp"

    connection: McpConnection
    server: str | None = None
    tool_prefix: str | None = None
    tools: list[str] | None = None
    connect_timeout: float = Field(default=30.0, gt=0, le=MAX_TIMEOUT)
    call_timeout: float = Field(default=300.0, gt=0, le=MAX_TIMEOUT)
    tool_errors: ToolErrors = "retry"
    include_instructions: bool = False
    max_result_chars: int = Field(default=MAX_RESULT_CHARS, ge=1)

    _guarded: ServerToolset | None = PrivateAttr(default=None)
    _toolset: AbstractToolset[Any] | None = PrivateAttr(default=None)

    @field_validator("tool_prefix")
    @classmethod
    def _prefix(cls, value: str | None) -> str | None:
        if value is not None and not _PREFIX.match(value):
            raise ValueError(
                f"tool_prefix must start with a letter and hold only letters, digits, _ and -, "
                f"got {value!r}"
            )
        return value

    @property
    def server_name(self) -> str:
        """What the server is called in messages, logs and this card's key."""
        return self.server or self.connection.describe()

    def card_key(self) -> str:
        return f"{self.name}:{self.server_name}"

    def on_bind(self) -> None:
        from retinue_mcp.toolset import ServerToolset

        guarded = ServerToolset(
            self._mcp_toolset,
            server=self.server_name,
            tool_errors=self.tool_errors,
            only=self.tools,
            max_result_chars=self.max_result_chars,
        )
        self._guarded = guarded
        self._toolset = guarded.prefixed(self.tool_prefix) if self.tool_prefix else guarded

    def _mcp_toolset(self) -> MCPToolset[Any]:
        """pydantic-ai's toolset for the server, built (and secrets read) at each start."""
        from pydantic_ai.mcp import MCPToolset

        return MCPToolset(
            self.connection.transport_for(call_timeout=self.call_timeout),
            tool_error_behavior="error",  # ServerToolset tells tool errors from lost servers
            include_instructions=self.include_instructions,
            init_timeout=self.connect_timeout,
            read_timeout=self.call_timeout,
        )

    def on_unbind(self) -> None:
        if self._guarded is not None:
            self._guarded.close()
        self._guarded = self._toolset = None

    def get_toolsets(self) -> Sequence[AbstractToolset[Any]]:
        return () if self._toolset is None else (self._toolset,)
