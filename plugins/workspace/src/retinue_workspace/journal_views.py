"""The journal as a model or a person reads it: a file's history, and what one commit changed.

What the commits hold was written by models and by commands, so both answers go out with
every message fence escaped (`retinue.kit.neutralize`) and cut at a length that is said.
"""

from __future__ import annotations

import io
import time

from dulwich.objects import Commit
from dulwich.patch import write_tree_diff
from retinue.kit import neutralize

from retinue_workspace.journal import Journal, resolve
from retinue_workspace.paths import display, parse_path


def history(journal: Journal, path: str = "", limit: int = 20) -> str:
    """The latest commits (of `path`, or of the whole workspace), newest first."""
    parts = parse_path(path) if path.strip() else ()
    shown = display(parts)
    with journal.repo(create=False) as repo:
        try:
            head = repo.head()
        except KeyError:
            return "The journal has no commit yet."
        walker = repo.get_walker(
            include=[head], paths=[shown.encode()] if parts else None, max_entries=limit + 1
        )
        commits = [entry.commit for entry in walker]
    if not commits:
        return f"No commit changed {shown}."
    lines = [_line(commit) for commit in commits[:limit]]
    if len(commits) > limit:
        lines.append(f"... and older commits (the latest {limit} are shown)")
    what = f"of {shown}" if parts else "of the workspace"
    return neutralize(f"History {what}, newest first:\n" + "\n".join(lines))


def diff(journal: Journal, rev: str = "", max_chars: int = 20_000) -> str:
    """What commit `rev` (default: the latest) changed, as a unified diff."""
    with journal.repo(create=False) as repo:
        commit = resolve(repo, rev)
        parent = repo[commit.parents[0]] if commit.parents else None
        out = io.BytesIO()
        old_tree = parent.tree if isinstance(parent, Commit) else None
        write_tree_diff(out, repo.object_store, old_tree, commit.tree)
    text = out.getvalue().decode("utf-8", "replace")
    header = _line(commit)
    if not text:
        return neutralize(f"{header}\n(no change)")
    if len(text) > max_chars:
        text = (
            text[:max_chars]
            + f"\n[diff cut: {len(text):,} characters, the first {max_chars:,} shown]"
        )
    return neutralize(f"{header}\n{text}")


def _line(commit: Commit) -> str:
    """`1a2b3c4 2025-01-31 12:00 @Writer: write notes.md`."""
    when = time.strftime("%Y-%m-%d %H:%M", time.gmtime(commit.author_time))
    author = commit.author.decode("utf-8", "replace").split(" <", 1)[0]
    subject = commit.message.decode("utf-8", "replace").split("\n", 1)[0]
    return f"{commit.id.decode()[:7]} {when} {author}: {subject}"
