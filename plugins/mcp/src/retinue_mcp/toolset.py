"""One MCP server as the toolset an agent's runs use: kept up across runs, never fatal.

pydantic-ai's `MCPToolset` speaks the protocol; this toolset decides the lifetime and what
a failure means. The server is started by the first run and kept until the agent stops (a
stdio server is one process per agent, not one per run). A server that cannot start, or
stops answering, is told to the model (its instructions say the server is unavailable, and
every call to one of its tools is a failed result giving the reason) and logged once; the
run goes on and the agent stays up. A lost server is started again at the next run, once.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from fastmcp.exceptions import ToolError
from mcp.shared.exceptions import MCPError
from mcp.types import CONNECTION_CLOSED
from pydantic_ai import ModelRetry, RunContext, ToolFailed
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.messages import InstructionPart
from pydantic_ai.toolsets import AbstractToolset, ToolsetTool

from retinue_mcp.card import MAX_RESULT_CHARS, ToolErrors
from retinue_mcp.effects import declared
from retinue_mcp.results import capped

logger = logging.getLogger("retinue_mcp")

CLOSE_TIMEOUT = 10.0
"""Seconds an agent's stop waits for its server to shut down."""


def _leaf(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def one_line(exc: BaseException) -> str:
    """An exception as one short line (groups by their first member)."""
    exc = _leaf(exc)
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 300 else text[:297] + "..."


class ServerToolset(AbstractToolset[Any]):
    """The tools of one MCP server, guarded so that the server failing never ends a run.

    `connect` builds the `MCPToolset` (it reads secrets from the environment, so it runs
    at each start, not at construction); `only` keeps the named tools; a result longer
    than `max_result_chars` is cut (`retinue_mcp.results`).
    """

    def __init__(
        self,
        connect: Callable[[], MCPToolset[Any]],
        *,
        server: str,
        tool_errors: ToolErrors = "retry",
        only: Sequence[str] | None = None,
        max_result_chars: int = MAX_RESULT_CHARS,
    ) -> None:
        self._connect = connect
        self.max_result_chars = max_result_chars
        self.server = server
        self.tool_errors: ToolErrors = tool_errors
        self.only = None if only is None else frozenset(only)
        self._mcp: MCPToolset[Any] | None = None
        self._up = False
        self._failure: str | None = None
        self._known: dict[str, ToolsetTool[Any]] = {}
        self._missing_told: set[str] = set()
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def id(self) -> str | None:
        return None

    @property
    def label(self) -> str:
        return f"MCP server {self.server!r}"

    @property
    def failure(self) -> str | None:
        """Why the server cannot be used, in one line; None while it answers."""
        return self._failure

    # -- lifetime ------------------------------------------------------------------------------

    async def __aenter__(self) -> ServerToolset:
        """A run starts: start the server unless it is up (one attempt per run)."""
        if not self._up:
            await self._start()
        return self

    async def __aexit__(self, *args: Any) -> bool | None:
        return None  # the server outlives the run; `close` ends it

    async def _start(self) -> None:
        self._loop = asyncio.get_running_loop()
        await self._release()  # what is left of a lost session
        try:
            self._mcp = self._connect()
            await self._mcp.__aenter__()
        except Exception as exc:  # noqa: BLE001 - a server may fail in any way: it is marked down
            self._mcp = None
            self._fail(f"did not start: {one_line(exc)}")
            return
        if self._failure is not None:
            logger.info("%s is running again", self.label)
        self._up, self._failure = True, None

    async def _release(self) -> None:
        mcp, self._mcp = self._mcp, None
        if mcp is not None and mcp.is_running:
            with contextlib.suppress(Exception):
                await mcp.__aexit__(None, None, None)

    async def aclose(self) -> None:
        """End the session (and a stdio server's process)."""
        self._up = False
        await self._release()

    def close(self, timeout: float = CLOSE_TIMEOUT) -> None:
        """`aclose` from another thread (the agent's, as it stops), waiting up to `timeout`."""
        loop = self._loop
        if loop is None or loop.is_closed() or not loop.is_running() or self._mcp is None:
            return
        future = asyncio.run_coroutine_threadsafe(self.aclose(), loop)
        try:
            future.result(timeout)
        # a server may fail to stop in any way: it is logged
        except (concurrent.futures.TimeoutError, Exception) as exc:  # noqa: BLE001
            future.cancel()
            logger.warning("%s did not shut down cleanly: %s", self.label, one_line(exc))

    def _fail(self, what: str) -> None:
        """Mark the server down; one warning per outage, however its reason is worded.

        A server that stays down is retried at every run, and the client's error text may
        differ between attempts: a changed reason is logged at INFO, never warned again.
        """
        failure = f"{self.label} {what}"
        if self._failure is None:
            logger.warning("%s", failure)
        elif failure != self._failure:
            logger.info("%s", failure)
        self._failure, self._up = failure, False

    # -- what the model sees -------------------------------------------------------------------

    async def get_instructions(
        self, ctx: RunContext[Any]
    ) -> str | InstructionPart | Sequence[str | InstructionPart] | None:
        if self._failure is not None:
            # Only words of ours: the reason, which may carry the server's text, goes in
            # tool results, never in the instructions.
            return (
                f"The {self.label} is unavailable; its tools cannot be used in this run "
                "(a call to one says why)."
            )
        if self._mcp is None:
            return None
        return await self._mcp.get_instructions(ctx)

    async def get_tools(self, ctx: RunContext[Any]) -> dict[str, ToolsetTool[Any]]:
        """The server's tools; while it is down, the ones it had (their calls say why)."""
        if self._up and self._mcp is not None:
            try:
                tools = await self._mcp.get_tools(ctx)
            except Exception as exc:  # noqa: BLE001 - a server may fail in any way: marked down
                self._fail(f"stopped answering: {one_line(exc)}")
            else:
                self._known = {
                    name: replace(tool, toolset=self, tool_def=declared(tool.tool_def))
                    for name, tool in tools.items()
                    if self.only is None or name in self.only
                }
                self._check_only(tools)
        return dict(self._known)

    def _check_only(self, tools: dict[str, ToolsetTool[Any]]) -> None:
        """A name in `tools` the server does not have is a typo: logged once."""
        missing = sorted((self.only or frozenset()) - set(tools) - self._missing_told)
        if missing:
            self._missing_told |= set(missing)
            logger.warning(
                "%s has no tool %s (it has: %s)",
                self.label,
                ", ".join(map(repr, missing)),
                ", ".join(sorted(tools)) or "none",
            )

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any], tool: ToolsetTool[Any]
    ) -> Any:
        mcp = self._mcp
        if not self._up or mcp is None:
            raise ToolFailed(
                f"{self._failure or self.label + ' is not running'}. Its tools cannot be used "
                "now; it is started again at the next run."
            )
        try:
            result = await mcp.call_tool(name, tool_args, ctx, replace(tool, toolset=mcp))
        except (ModelRetry, ToolFailed):
            raise
        except Exception as exc:
            raise self._call_error(name, exc) from exc
        return capped(result, self.max_result_chars)

    def _call_error(self, name: str, exc: Exception) -> Exception:
        """What the model is told about a failed call: the tool's error, or the server's."""
        error = _leaf(exc)
        if isinstance(error, asyncio.CancelledError):
            raise error
        lost = isinstance(error, MCPError) and error.code == CONNECTION_CLOSED
        if lost or not isinstance(error, ToolError | MCPError):  # the process, the network
            self._fail(f"stopped during a call to {name}: {one_line(error)}")
            return ToolFailed(
                f"{self._failure}. Its tools cannot be used now; it is started again at the "
                "next run."
            )
        text = f"{name} failed: {one_line(error)}"
        return ToolFailed(text) if self.tool_errors == "failed" else ModelRetry(text)
