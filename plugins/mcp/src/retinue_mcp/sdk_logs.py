"""The MCP SDK's log lines, and its HTTP client's, with the credentials in URLs hidden.

The SDK logs the address it connects to (`Connecting to StreamableHTTP endpoint:
https://...?api_key=...`, at DEBUG) and httpx each request it sends (at INFO): a key in a
server's URL would reach whatever the user's logging keeps. A filter on those loggers
redacts it (`retinue.kit.RedactingFilter`); on httpx's, for every client of
the process, which only ever hides a credential.
"""

from __future__ import annotations

import logging

from retinue.kit import RedactingFilter

SDK_LOGGERS = (
    "mcp.client.streamable_http",
    "mcp.client.sse",
    "mcp.client.auth.oauth2",
    "fastmcp.client.auth.oauth",
    "httpx",
    "httpx2",  # the SDK's HTTP client, under either name
)
"""The loggers that print a server's address."""


def redact_sdk_logs() -> None:
    """Put the redacting filter on each of `SDK_LOGGERS` (once; a logger made later by the
    SDK is the same object, filter and all)."""
    for name in SDK_LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(existing, RedactingFilter) for existing in logger.filters):
            logger.addFilter(RedactingFilter())
