"""`WorkspaceTool`: files an agent reads, writes and lists, sealed inside one directory.

One feature, three channels:

* TOOL_CALL — `workspace_read`, `workspace_write`, `workspace_edit`, `workspace_list` and
  `workspace_delete` for the model (see `model_tools`): refusals it can correct come back
  as retries, never as a failed turn;
* SYSTEM_PROMPT — one stable paragraph: where the files are and what `!!path` does;
* COMMAND — the same five operations for operators (`/workspace_list *.md`) and for code,
  `workspace_root` (where the files are on disk), and the hidden `_expand_media_refs`
  that the kernel's `act()` calls on every prompt to attach the images it names.
  Refusals raise `WorkspaceError`, a `ValueError` the registry hands back to the operator.

With `journal` (on by default) every change is a git commit by the member that made it
(`journal`), read with `workspace_history` and `workspace_diff` and undone, as a new commit,
with `/workspace_undo`. With `run`, `workspace_run` runs a command in a sandbox (`sandbox`).

The card is plain data (its settings); the `Workspace` that does the work is built when
the card is bound to an agent and touches the disk only when first used.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import Field, PrivateAttr
from retinue import ActorAddress, ToolCard
from retinue.kit import cause_of

from retinue_workspace.errors import WorkspaceError
from retinue_workspace.files import DEFAULT_READ_LINES, Workspace
from retinue_workspace.journal import Journal, Stamp
from retinue_workspace.listing import Listing
from retinue_workspace.paths import DEFAULT_PATTERN

if TYPE_CHECKING:
    from pydantic_ai import Tool

    from retinue_workspace.media import ExpandedPrompt

logger = logging.getLogger(__name__)

MIB = 1024 * 1024

SYSTEM_PROMPT = (
    "You have a file workspace shared with your team; the workspace_* tools read, write, "
    "edit, list and delete its files, by paths relative to it such as 'notes/todo.md'. "
    'Writing !!path (or !!"a name with spaces.png") in a message shows that image from '
    "the workspace to whoever receives the message; !!*.png shows every matching image."
)

_SAFE_SEGMENT = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}")


class WorkspaceTool(ToolCard):
    """A file workspace sealed in one directory, and `!!image` references in prompts."""

    name: ClassVar[str] = "workspace"

    root: Path = Path("workspace")
    """The workspace directory; a relative one is taken from the working directory when the
    agent starts. Created when first used."""
    per_team: bool = True
    """Give each team its own sub-directory of `root` (named by the team's id), so two teams
    never share files. Off: every agent with this card shares `root` itself."""
    max_file_bytes: int = Field(default=10 * MIB, ge=1)
    """The largest file that may be read, written or created by an edit."""
    max_read_chars: int = Field(default=100_000, ge=1)
    """The most text one `workspace_read` returns; a longer read says where to go on."""
    max_list_entries: int = Field(default=500, ge=1)
    """The most entries one listing shows; it also says how many more matched."""
    max_media_images: int = Field(default=8, ge=0)
    """The most images `!!` references attach to one prompt."""
    max_image_bytes: int = Field(default=5 * MIB, ge=1)
    """The largest image a `!!` reference attaches; a larger one is named, not sent."""
    journal: bool = True
    """Commit every change to a git repository in the workspace (`.git`), by member."""
    history_tools: bool = False
    """Offer the model `workspace_history` and `workspace_diff` (about 140 tokens on every
    request); the person has them as commands either way."""
    run: bool = False
    """Offer `workspace_run`: shell commands in a sandbox rooted at the workspace."""
    sandbox: Literal["bubblewrap", "none"] = "bubblewrap"
    """How commands are confined; `"none"` runs them with limits only, unconfined."""
    run_timeout: int = Field(default=300, ge=1, le=86_400)
    """The most seconds a command may take (wall clock, and CPU time per process)."""
    run_memory_mb: int = Field(default=1024, ge=16)
    """The memory (address space) each process of a command may have."""
    run_processes: int = Field(default=64, ge=1)
    """How many processes a command may have at once."""
    run_output_chars: int = Field(default=20_000, ge=200)
    """The most output of a command the model reads; the rest is cut, and said."""

    _workspace: Workspace | None = PrivateAttr(default=None)
    _journal: Journal | None = PrivateAttr(default=None)

    # -- binding ---------------------------------------------------------------------------

    def on_bind(self) -> None:
        self._workspace = Workspace(
            self.directory_for(self.host.myAddress),
            max_file_bytes=self.max_file_bytes,
            max_read_chars=self.max_read_chars,
            max_list_entries=self.max_list_entries,
        )
        self._journal = Journal(self._workspace.root) if self.journal else None

    def on_unbind(self) -> None:
        self._workspace = self._journal = None

    def directory_for(self, member: ActorAddress) -> Path:
        """The directory the agents of `member`'s team work in (any member's address will do).

        With `per_team`, `<root>/<team id>`; an agent outside any team gets a directory of
        its own, `<root>/agent-<agent id>`. Put files there before a run to show them to it.
        """
        root = Path(self.root).expanduser().absolute()
        if not self.per_team:
            return root
        if member.team_id is not None:
            return root / _segment(member.team_id)
        return root / _segment(f"agent-{member.agent_id}")

    @property
    def workspace(self) -> Workspace:
        """The bound agent's workspace; `CardNotBoundError` on a card that is only a blueprint."""
        workspace = self._workspace
        if workspace is None:
            self.host  # noqa: B018 -- raises the kernel's clear CardNotBoundError
            raise RuntimeError("the workspace card was bound without its workspace")
        return workspace

    # -- channels --------------------------------------------------------------------------

    def get_tools(self) -> Sequence[Tool[Any]]:
        from retinue_workspace.model_tools import build_tools

        return build_tools(self)

    def get_system_prompts(self) -> Sequence[str]:
        return [SYSTEM_PROMPT]

    def get_commands(self) -> Sequence[Callable[..., Any]]:
        journal = [self.workspace_history, self.workspace_diff, self.workspace_undo]
        return [
            self.workspace_read,
            self.workspace_write,
            self.workspace_edit,
            self.workspace_list,
            self.workspace_delete,
            self.workspace_root,
            *(journal if self.journal else ()),
            *([self.workspace_run] if self.runs_commands() else ()),
            self._expand_media_refs,
        ]

    def runs_commands(self) -> bool:
        """Whether `workspace_run` is offered: `run` is on and a sandbox can be made (or
        the team chose `sandbox = "none"`)."""
        from retinue_workspace.sandbox import sandbox_problem

        return self.run and (self.sandbox == "none" or sandbox_problem() is None)

    def unavailable(self) -> Sequence[str]:
        """Why `workspace_run` (asked for with `run = true`) is not offered here, if it is not."""
        from retinue_workspace.sandbox import sandbox_problem

        if not self.run or self.sandbox == "none":
            return []
        problem = sandbox_problem()
        return [f"workspace_run (run = true) is not offered here: {problem}"] if problem else []

    # -- commands --------------------------------------------------------------------------

    def workspace_read(self, path: str, offset: int = 0, limit: int = DEFAULT_READ_LINES) -> str:
        """Show a text file of the workspace with line numbers (from line offset+1)."""
        return self.workspace.read(path, offset, limit)

    def workspace_write(self, path: str, content: str) -> str:
        """Create a file in the workspace, or replace its content."""
        answer = self.workspace.write(path, content)
        return self._journaled(f"write {path}", self.workspace.where(path), answer)

    def workspace_edit(self, path: str, old: str, new: str) -> str:
        """Replace the one occurrence of `old` with `new` in a workspace file."""
        answer = self.workspace.edit(path, old, new)
        return self._journaled(f"edit {path}", self.workspace.where(path), answer)

    def workspace_list(self, pattern: str = DEFAULT_PATTERN) -> Listing:
        """List the workspace entries whose paths match a glob (default: everything)."""
        return self.workspace.listing(pattern)

    def workspace_delete(self, path: str) -> str:
        """Delete a file, a link or an empty directory from the workspace."""
        shown = self.workspace.where(path, follow_last=False)
        return self._journaled(f"delete {path}", shown, self.workspace.delete(path))

    def workspace_history(self, path: str = "") -> str:
        """The journal's latest commits: of one file, or of the whole workspace."""
        from retinue_workspace.journal_views import history

        return history(self._journal_on(), path)

    def workspace_diff(self, rev: str = "") -> str:
        """What one commit of the journal changed (default: the latest), as a diff."""
        from retinue_workspace.journal_views import diff

        return diff(self._journal_on(), rev, self.run_output_chars)

    def workspace_undo(self, rev: str = "") -> str:
        """Undo one commit of the journal (default: the latest) with a new commit."""
        from retinue_workspace.undo import undo

        return undo(self.workspace, self._journal_on(), rev, self._stamp())

    def workspace_run(self, command: str, timeout: int = 60) -> str:
        """Run a shell command in a sandbox in the workspace; its output, bounded."""
        from retinue_workspace.running import run_command
        from retinue_workspace.sandbox import Limits

        if not self.run:
            raise WorkspaceError("running commands is off for this workspace (run = false)")
        limits = Limits(
            seconds=max(1, min(int(timeout), self.run_timeout)),
            memory_bytes=self.run_memory_mb * MIB,
            processes=self.run_processes,
            file_bytes=self.max_file_bytes,
            output_bytes=self.run_output_chars,
        )
        return run_command(
            self.workspace,
            self._journal,
            self._stamp(),
            command,
            limits,
            isolate=self.sandbox != "none",
        )

    def workspace_root(self) -> str:
        """Where this agent's workspace is on disk."""
        return str(self.workspace.root)

    # -- the journal -------------------------------------------------------------------------

    def _stamp(self) -> Stamp:
        cause = cause_of(self.host)
        return Stamp(self.host.myAddress.name, cause.parent_id, cause.chain_id)

    def _journal_on(self) -> Journal:
        self.workspace  # noqa: B018 -- an unbound card says so first
        if self._journal is None:
            raise WorkspaceError("this workspace keeps no journal (journal = false)")
        return self._journal

    def _journaled(self, subject: str, path: str, answer: str) -> str:
        """`answer`, once the change to `path` is a commit; a journal failure is said."""
        if self._journal is None:
            return answer
        try:
            self._journal.record(subject, self._stamp(), [path])
        except Exception as exc:  # the change is made: the answer says it went unrecorded
            logger.warning("the journal could not record %s", subject, exc_info=True)
            return f"{answer} (The journal could not record it: {exc})"
        return answer

    def _expand_media_refs(self, prompt: str) -> str | ExpandedPrompt:
        """Attach the images a prompt names with `!!`; the same string when it names none."""
        if "!!" not in prompt:
            return prompt
        from retinue_workspace.media import expand_media_refs

        try:
            return expand_media_refs(
                prompt,
                self.workspace,
                max_images=self.max_media_images,
                max_image_bytes=self.max_image_bytes,
            )
        except Exception as exc:  # the prompt still goes out, with the reason
            logger.warning("media references could not be expanded", exc_info=True)
            return f"{prompt}\n\n[The !! references above could not be expanded: {exc}]"


def _segment(name: str) -> str:
    """A team or agent id as one safe directory name (an odd one is hashed, never trusted)."""
    if _SAFE_SEGMENT.fullmatch(name) and name not in (".", ".."):
        return name
    return "team-" + hashlib.sha256(name.encode()).hexdigest()[:32]
