"""`workspace_run`: one command in the sandbox, its files committed, its output described.

The card's settings become the command's limits; the journal's repository is made before
the command starts (so the sandbox covers `.git`), and what the command changed in the
workspace is one commit afterwards.
"""

from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING

from retinue_workspace import sandbox
from retinue_workspace.errors import WorkspaceError
from retinue_workspace.journal import Journal, Stamp
from retinue_workspace.run_report import describe

if TYPE_CHECKING:
    from retinue_workspace.files import Workspace

logger = logging.getLogger(__name__)

#: The longest command line taken.
MAX_COMMAND_CHARS = 10_000


def run_command(
    workspace: Workspace,
    journal: Journal | None,
    stamp: Stamp,
    command: str,
    limits: sandbox.Limits,
    *,
    isolate: bool,
) -> str:
    """Run `command` in the workspace (sandboxed unless `isolate` is off); what it did."""
    if not isinstance(command, str) or not command.strip():
        raise WorkspaceError("the command is empty; give a shell command line such as 'ls -la'")
    if len(command) > MAX_COMMAND_CHARS or "\x00" in command:
        raise WorkspaceError(
            f"the command must be at most {MAX_COMMAND_CHARS:,} characters, without NUL"
        )
    if isolate and (problem := sandbox.sandbox_problem()) is not None:
        raise WorkspaceError(f"no sandbox can be made here, so nothing runs: {problem}")
    if journal is not None:
        journal.ensure()
    root_fd = workspace.open_root()
    try:
        outcome = sandbox.run(root_fd, workspace.root, command, limits, isolate=isolate)
    finally:
        os.close(root_fd)
    committed = None
    if journal is not None:
        try:
            committed = journal.record(f"run: {command}", stamp)
        except Exception:  # the run happened: its answer still goes back
            logger.warning("the journal could not record a run", exc_info=True)
    return describe(outcome, limits, committed)
