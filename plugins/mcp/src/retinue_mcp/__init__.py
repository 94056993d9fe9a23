"""retinue-mcp: MCP servers as tool cards, and a team served as an MCP server.

`McpTool(connection=StdioConnection(...) | HttpConnection(...))` gives an agent one
server's tools; `retinue mcp serve TEAM.toml` exposes a team to any MCP client.
"""

from retinue_mcp.card import McpTool
from retinue_mcp.connection import HttpConnection, McpConnection, StdioConnection

__all__ = ["HttpConnection", "McpConnection", "McpTool", "StdioConnection"]
