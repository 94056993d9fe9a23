"""A setting that is the address of a remote service reached over HTTP.

A card or a member that talks to a server at a configured URL (an MCP server, an A2A agent)
takes only http:// or https:// with a host: anything else (`ftp://...`, a bare
`host:port`, which `urlsplit` reads as a scheme) is a mistake in the config, said when it is
loaded rather than at the first request.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from retinue.validation import shown


def http_url(value: str) -> str:
    """`value`, if it is an http:// or https:// URL with a host; else a `ValueError` saying
    so (for a pydantic field validator)."""
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"{shown(value)} is not an http:// or https:// URL")
    return value
