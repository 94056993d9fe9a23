"""`Journal`: every change to a workspace as a commit of a git repository in it (dulwich).

The repository is the workspace's own `.git`, so `git log` in the workspace reads it and it
lasts as long as the files do (a resumed team goes on committing to it). Each commit's
author is the member that made the change, and its message carries the turn and the task
chain as trailers. An undo is a new commit restoring what the undone one changed, never a
rewrite. The workspace's paths never reach `.git` (`paths.parse_path` refuses it), and a
sandboxed command never sees it.

One lock per repository in this process: the members of a team share one workspace, each
through its own card, and commit in turn.
"""

from __future__ import annotations

import os
import re
import stat
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from dulwich.errors import NotGitRepository
from dulwich.objects import Blob, Commit, Tree
from dulwich.objectspec import parse_commit
from dulwich.repo import Repo

from retinue_workspace.descriptors import TEMP_PREFIX
from retinue_workspace.errors import WorkspaceError
from retinue_workspace.paths import is_journal_name

#: The most commits one history shows.
HISTORY_LIMIT = 20

_LOCKS: dict[str, threading.Lock] = {}
_LOCKS_GUARD = threading.Lock()
_EMAIL_UNSAFE = re.compile(r"[^a-z0-9._-]+")


@dataclass(frozen=True)
class Stamp:
    """Who changed the workspace, and in which turn and task chain."""

    member: str
    turn_id: str | None = None
    chain_id: str | None = None

    def author(self) -> bytes:
        """`@Member <member@retinue>`, as git shows an author."""
        name = self.member.replace("<", "").replace(">", "").replace("\n", " ").strip()
        local = _EMAIL_UNSAFE.sub("-", name.lower().lstrip("@")).strip("-") or "member"
        return f"{name or 'unknown'} <{local}@retinue>".encode()

    def message(self, subject: str) -> bytes:
        """The commit message: `subject`, then the member, turn and chain as trailers."""
        line = " ".join(subject.split())[:200] or "change"
        trailers = [f"Member: {self.member}"]
        trailers += [f"Turn: {self.turn_id}"] if self.turn_id else []
        trailers += [f"Chain: {self.chain_id}"] if self.chain_id else []
        return (f"{line}\n\n" + "\n".join(trailers) + "\n").encode()


class Journal:
    """The git journal of one workspace directory."""

    def __init__(self, root: Path) -> None:
        self.root = root
        key = os.path.realpath(root)
        with _LOCKS_GUARD:
            self._lock = _LOCKS.setdefault(key, threading.Lock())

    @contextmanager
    def repo(self, *, create: bool = True) -> Iterator[Repo]:
        """The repository, under the lock; created (with the workspace) when missing."""
        with self._lock:
            try:
                repo = Repo(str(self.root))
            except NotGitRepository:
                if not create:
                    raise WorkspaceError("the workspace's journal has no commit yet") from None
                self.root.mkdir(parents=True, exist_ok=True)
                repo = Repo.init(str(self.root))
            try:
                yield repo
            finally:
                repo.close()

    def ensure(self) -> None:
        """Create the repository now if it is missing (before a sandbox hides `.git`)."""
        with self.repo():
            pass

    def record(self, subject: str, stamp: Stamp, paths: Sequence[str] | None = None) -> str | None:
        """Commit `paths` (None: the whole workspace) as they are on disk now.

        Returns the new commit's short id, or None when nothing changed.
        """
        with self.repo() as repo:
            return _commit(repo, self.root, subject, stamp, paths)

    def head(self) -> Commit | None:
        """The latest commit, or None before the first."""
        with self.repo() as repo:
            return _head(repo)

    def commit(self, rev: str | None) -> Commit:
        """The commit `rev` names (an id, a prefix of one, `HEAD~2`); the latest by default."""
        with self.repo(create=False) as repo:
            return resolve(repo, rev)


def resolve(repo: Repo, rev: str | None) -> Commit:
    """The commit `rev` names in `repo`; `WorkspaceError` naming it when there is none."""
    if rev is None or not rev.strip():
        head = _head(repo)
        if head is None:
            raise WorkspaceError("the workspace's journal has no commit yet")
        return head
    text = rev.strip()
    if not re.fullmatch(r"[A-Za-z0-9_~^./-]{1,80}", text) or ".." in text:
        raise WorkspaceError(f"{rev!r} is not a revision; give a commit id such as 1a2b3c4")
    try:
        return parse_commit(repo, text.encode())
    except Exception:  # noqa: BLE001 - dulwich raises KeyError, ValueError, AmbiguousShortId...
        raise WorkspaceError(
            f"the journal has no commit {text!r}; workspace_history lists them"
        ) from None


def _head(repo: Repo) -> Commit | None:
    try:
        head = repo.head()
    except KeyError:
        return None
    commit = repo[head]
    assert isinstance(commit, Commit)
    return commit


def _commit(
    repo: Repo, root: Path, subject: str, stamp: Stamp, paths: Sequence[str] | None
) -> str | None:
    worktree = repo.get_worktree()
    if paths is None:
        index = repo.open_index()
        tracked = [p.decode("utf-8", "surrogateescape") for p in index.paths()]
        paths = sorted(set(tracked) | set(_files(root)))
    if paths:
        worktree.stage(list(paths))
    tree = repo.open_index().commit(repo.object_store)
    head = _head(repo)
    if tree == (head.tree if head is not None else Tree().id):
        return None
    author = stamp.author()
    now = time.time()
    commit_id = worktree.commit(
        message=stamp.message(subject),
        author=author,
        committer=author,
        commit_timestamp=now,
        author_timestamp=now,
        commit_timezone=0,
        author_timezone=0,
        tree=tree,
        no_verify=True,
        sign=False,
        signoff=False,
    )
    return commit_id.decode()[:7]


def _files(root: Path) -> Iterator[str]:
    """Every file and link of the workspace by relative path, outside any git directory."""
    for top, dirnames, filenames, _ in os.fwalk(str(root), follow_symlinks=False):
        dirnames[:] = [d for d in dirnames if not is_journal_name(d)]
        relative = os.path.relpath(top, root)
        prefix = "" if relative == "." else relative + "/"
        for name in filenames:
            if not is_journal_name(name) and not name.startswith(TEMP_PREFIX):
                yield prefix + name
        for name in dirnames:  # links to directories are listed among the directories
            if stat.S_ISLNK(os.lstat(os.path.join(top, name)).st_mode):
                yield prefix + name


def blob_of(data: bytes) -> bytes:
    """The id git gives a file holding `data`."""
    return Blob.from_string(data).id
