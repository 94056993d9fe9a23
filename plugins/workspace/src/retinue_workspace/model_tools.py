"""The workspace as the model's tools: each answers in text and never ends the turn.

A refusal the model can fix (a wrong path, an ambiguous edit) is a pydantic-ai `ModelRetry`
while the tool has retries left, and the same sentence as the tool's answer once they are
spent, so a model that keeps getting it wrong still finishes its turn. Anything else that
goes wrong is logged and answered in words.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic_ai import RunContext, Tool
from retinue import effect_metadata
from retinue.kit import tool_answer

from retinue_workspace.errors import WorkspaceError
from retinue_workspace.files import DEFAULT_READ_LINES
from retinue_workspace.paths import DEFAULT_PATTERN

if TYPE_CHECKING:
    from retinue_workspace.card import WorkspaceTool


def build_tools(card: WorkspaceTool) -> list[Tool[Any]]:
    """The tools of a bound card, each working in that card's workspace: the five file
    tools, the journal's two when it keeps one and they are asked for (`history_tools`),
    and `workspace_run` when commands run."""

    def workspace_read(
        ctx: RunContext[Any], path: str, offset: int = 0, limit: int = DEFAULT_READ_LINES
    ) -> str:
        """Read a text file from the shared workspace, with line numbers.

        A long file comes in parts: the answer says which lines it shows and the offset to
        read on from. A binary file is described, not shown.

        Args:
            path: The file's path inside the workspace, such as `notes/todo.md`.
            offset: How many lines to skip from the start; 0 starts at the first line.
            limit: The most lines to show.
        """
        return tool_answer(ctx, lambda: card.workspace.read(path, offset, limit), WorkspaceError)

    def workspace_write(ctx: RunContext[Any], path: str, content: str) -> str:
        """Create a file in the shared workspace, or replace its whole content.

        Missing directories are created. To change part of a file, use workspace_edit.

        Args:
            path: The file's path inside the workspace, such as `reports/summary.md`.
            content: The complete text the file will hold.
        """
        return tool_answer(ctx, lambda: card.workspace_write(path, content), WorkspaceError)

    def workspace_edit(ctx: RunContext[Any], path: str, old: str, new: str) -> str:
        """Replace one exact piece of text in a workspace file.

        `old` must occur exactly once in the file; include enough surrounding text to make
        it unique. Copy it from workspace_read without the line numbers.

        Args:
            path: The file's path inside the workspace.
            old: The exact text to replace, whitespace included.
            new: The text to put in its place.
        """
        return tool_answer(ctx, lambda: card.workspace_edit(path, old, new), WorkspaceError)

    def workspace_list(ctx: RunContext[Any], pattern: str = DEFAULT_PATTERN) -> str:
        """List what is in the shared workspace, sorted by path, with file sizes.

        Args:
            pattern: A glob over paths inside the workspace: `*` and `?` within one
                directory, `**` across directories. `**/*` lists everything, `*.md` the
                Markdown files at the top, `docs/**/*.md` those anywhere under docs.
        """
        return tool_answer(ctx, lambda: card.workspace.listing(pattern), WorkspaceError)

    def workspace_delete(ctx: RunContext[Any], path: str) -> str:
        """Delete a file, a link or an empty directory from the shared workspace.

        Args:
            path: Its path inside the workspace.
        """
        return tool_answer(ctx, lambda: card.workspace_delete(path), WorkspaceError)

    def workspace_history(ctx: RunContext[Any], path: str = "") -> str:
        """The latest changes to the workspace, newest first, with commit ids.

        Args:
            path: A file's path; empty for the whole workspace.
        """
        return tool_answer(ctx, lambda: card.workspace_history(path), WorkspaceError)

    def workspace_diff(ctx: RunContext[Any], rev: str = "") -> str:
        """What one change to the workspace was, as a diff.

        Args:
            rev: A commit id from workspace_history; empty for the latest.
        """
        return tool_answer(ctx, lambda: card.workspace_diff(rev), WorkspaceError)

    def workspace_run(ctx: RunContext[Any], command: str, timeout: int = 60) -> str:
        """Run a shell command (sh -c) in a sandbox whose working directory is the workspace.

        No network; only the workspace can be written. Returns how it ended and its output.

        Args:
            command: The command line.
            timeout: Seconds before it is killed.
        """
        return tool_answer(ctx, lambda: card.workspace_run(command, timeout), WorkspaceError)

    # What running each twice does (the tool-effect ledger): reads change nothing, and a
    # write of the same content leaves the file as one write did; an edit or a delete
    # run again is unknown (the second finds the file changed), so a crash is told.
    read_only, idempotent = effect_metadata("read_only"), effect_metadata("idempotent")
    tools = [
        Tool(workspace_read, takes_ctx=True, metadata=read_only),
        Tool(workspace_write, takes_ctx=True, metadata=idempotent),
        Tool(workspace_edit, takes_ctx=True),
        Tool(workspace_list, takes_ctx=True, metadata=read_only),
        Tool(workspace_delete, takes_ctx=True),
    ]
    if card.journal and card.history_tools:
        tools.append(Tool(workspace_history, takes_ctx=True, metadata=read_only))
        tools.append(Tool(workspace_diff, takes_ctx=True, metadata=read_only))
    if card.runs_commands():
        # A command may do anything in the workspace: its effect is unknown, so a crash
        # during one is told to the model rather than run again unannounced.
        tools.append(Tool(workspace_run, takes_ctx=True))
    return tools
