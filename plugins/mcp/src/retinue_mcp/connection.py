"""How a card reaches its MCP server: a subprocess over stdio, or a URL over HTTP.

Both are plain data, so a team file holds them and a record keeps them. Secrets are
`SecretStr` fields: the config a team publishes and records has them replaced by `***`. A
record outlives the process, so a team meant to be resumed names its secrets by
environment variable (`pass_env`, `bearer_token_env`), which is read each time the server
is started and never written anywhere.
"""

from __future__ import annotations

import os
import re
import shlex
from typing import TYPE_CHECKING, Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    field_validator,
    model_validator,
)
from retinue.kit import http_url, redact_address

if TYPE_CHECKING:
    from fastmcp.client.transports import ClientTransport

_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class ConnectionSettingError(ValueError):
    """A setting that can only be checked when the server starts (an unset variable)."""


def _check_env_names(names: list[str] | dict[str, SecretStr]) -> None:
    bad = [name for name in names if not _ENV_NAME.match(name)]
    if bad:
        raise ValueError(f"not an environment variable name: {', '.join(map(repr, bad))}")


def _from_env(name: str, what: str) -> str:
    value = os.environ.get(name)
    if value is None:
        raise ConnectionSettingError(f"environment variable {name} ({what}) is not set")
    return value


class StdioConnection(BaseModel):
    """A server the agent starts as a subprocess and talks to over its stdin and stdout.

    The subprocess gets a small safe environment (PATH, HOME, ...), then the variables
    named in `pass_env` with this process's values, then `env`. Put secrets in `env` or
    `pass_env`, never in `args`: arguments are published with the config.
    """

    model_config = ConfigDict(extra="forbid")

    transport: Literal["stdio"] = "stdio"
    command: str = Field(min_length=1)
    args: list[str] = Field(default_factory=list)
    env: dict[str, SecretStr] = Field(default_factory=dict)
    pass_env: list[str] = Field(default_factory=list)
    cwd: str | None = None

    @field_validator("command")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("command must not be blank")
        return value

    @model_validator(mode="after")
    def _names(self) -> StdioConnection:
        _check_env_names(self.env)
        _check_env_names(self.pass_env)
        return self

    def describe(self) -> str:
        """The command line, for messages and logs."""
        return shlex.join([self.command, *self.args])

    def transport_for(self, *, call_timeout: float) -> ClientTransport:
        """The FastMCP transport that starts this server; reads the environment now."""
        from fastmcp.client.transports import StdioTransport

        env = {name: _from_env(name, "pass_env") for name in self.pass_env}
        env.update({name: value.get_secret_value() for name, value in self.env.items()})
        # Not kept alive: closing the card's session ends the process (a restart is a new one).
        return StdioTransport(
            self.command, list(self.args), env=env or None, cwd=self.cwd, keep_alive=False
        )


class HttpConnection(BaseModel):
    """A server already running at a URL: streamable HTTP (`http`, the default) or `sse`.

    `bearer_token` (or the variable named by `bearer_token_env`) goes in the
    `Authorization` header of every request; `headers` are sent as they are.
    """

    model_config = ConfigDict(extra="forbid")

    transport: Literal["http", "sse"] = "http"
    url: Annotated[str, AfterValidator(http_url)]
    bearer_token: SecretStr | None = None
    bearer_token_env: str | None = None
    headers: dict[str, SecretStr] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _one_token(self) -> HttpConnection:
        if self.bearer_token is not None and self.bearer_token_env is not None:
            raise ValueError("give bearer_token or bearer_token_env, not both")
        if self.bearer_token_env is not None:
            _check_env_names([self.bearer_token_env])
        return self

    def __repr_args__(self) -> Any:
        """The fields, the address shown without credentials or query: a repr ends up in logs."""
        for name, value in super().__repr_args__():
            yield name, self.describe() if name == "url" else value

    def describe(self) -> str:
        """The address without credentials or query (or a key in its path), for messages
        and logs."""
        parts = urlsplit(self.url)
        port = f":{parts.port}" if parts.port else ""
        return redact_address(f"{parts.scheme}://{parts.hostname}{port}{parts.path}")

    def transport_for(self, *, call_timeout: float) -> ClientTransport:
        """The FastMCP transport for this URL; reads the token's variable now (the SDK's
        logs of the URL are redacted from here on)."""
        from fastmcp.client.transports import SSETransport, StreamableHttpTransport

        from retinue_mcp.sdk_logs import redact_sdk_logs

        redact_sdk_logs()

        token: str | None = None
        if self.bearer_token is not None:
            token = self.bearer_token.get_secret_value()
        elif self.bearer_token_env is not None:
            token = _from_env(self.bearer_token_env, "bearer_token_env")
        headers = {name: value.get_secret_value() for name, value in self.headers.items()}
        if self.transport == "sse":
            return SSETransport(
                self.url, headers=headers or None, auth=token, sse_read_timeout=call_timeout
            )
        return StreamableHttpTransport(self.url, headers=headers or None, auth=token)


McpConnection = Annotated[StdioConnection | HttpConnection, Field(discriminator="transport")]
"""Where a card's server is: `transport` is `stdio`, `http` (streamable HTTP) or `sse`."""
