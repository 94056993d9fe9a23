"""`/workspace_undo [rev]`: put back what one commit changed, as a new commit.

Every file the commit changed is restored as its parent had it (a file it created is
deleted), through the same sealed `Workspace` the tools use. A file changed again after that
commit is not overwritten: the undo is refused with its name, so a later change is never
lost silently; undo the later commits first.
"""

from __future__ import annotations

import os
import stat

from dulwich.diff_tree import tree_changes
from dulwich.objects import Blob, Commit

from retinue_workspace.errors import WorkspaceError, WorkspaceNotFoundError
from retinue_workspace.files import Workspace
from retinue_workspace.journal import Journal, Stamp, blob_of, resolve
from retinue_workspace.paths import parse_path


def undo(workspace: Workspace, journal: Journal, rev: str | None, stamp: Stamp) -> str:
    """Revert commit `rev` (default: the latest) in the files, and commit that."""
    with journal.repo(create=False) as repo:
        commit = resolve(repo, rev)
        parent = repo[commit.parents[0]] if commit.parents else None
        old_tree = parent.tree if isinstance(parent, Commit) else None
        plan: list[tuple[str, bytes | None]] = []
        for change in tree_changes(repo.object_store, old_tree, commit.tree):
            before, after = change.old, change.new
            path = next((e.path for e in (after, before) if e is not None and e.path), b"")
            name = path.decode("utf-8", "surrogateescape")
            expected = after.sha if after is not None else None
            if _current(workspace, name) != expected:
                raise WorkspaceError(
                    f"{name} changed after {commit.id.decode()[:7]}; undo the later commits "
                    "first (workspace_history shows them)"
                )
            if before is not None and before.mode is not None and stat.S_ISLNK(before.mode):
                raise WorkspaceError(f"{name} was a symbolic link; an undo does not restore links")
            content = None
            if before is not None and before.sha is not None:
                blob = repo[before.sha]
                assert isinstance(blob, Blob)
                content = blob.as_raw_string()
            plan.append((name, content))
    short = commit.id.decode()[:7]
    subject = commit.message.decode("utf-8", "replace").split("\n", 1)[0]
    if not plan:
        return f"{short} changed no file; nothing to undo."
    for name, content in plan:
        if content is None:
            workspace.delete(name)
            _prune(workspace, name)
        else:
            workspace.put(name, content)
    made = journal.record(f"undo {short}: {subject}", stamp, [name for name, _ in plan])
    files = ", ".join(name for name, _ in plan)
    return f"Undid {short} ({subject}) in {files}" + (f" as {made}." if made else ".")


def _current(workspace: Workspace, name: str) -> bytes | None:
    """The git id of what `name` holds now (a link: its target), or None when it is missing."""
    if not workspace.exists(name):
        return None
    where = os.path.join(workspace.root, *parse_path(name))
    if stat.S_ISLNK(os.lstat(where).st_mode):
        return blob_of(os.fsencode(os.readlink(where)))
    try:
        with workspace.open(name) as file:
            return blob_of(file.stream.read())
    except WorkspaceNotFoundError:
        return None


def _prune(workspace: Workspace, name: str) -> None:
    """Delete the directories a removed file leaves empty, as git keeps no empty directory."""
    parts = name.split("/")[:-1]
    while parts:
        try:
            workspace.delete("/".join(parts))
        except WorkspaceError:  # not empty: what is above it is not either
            return
        parts.pop()
