"""`Workspace`: file operations sealed inside one directory, whatever the paths or links say.

Every operation passes three gates:

1. **the path as written** (`paths.parse_path`): relative, no `..`, no NUL;
2. **where it leads**: symbolic links are resolved (`os.path.realpath`) and the result must
   still lie inside the root, so a link to `/` or to a file elsewhere is refused by name;
3. **how it is opened**: from a descriptor of the root, one directory at a time, each with
   `O_NOFOLLOW`. The resolved path has no links left, so a link met here was swapped in
   after gate 2 and the open fails instead of following it. What is finally opened is
   `fstat`ed: only regular files are read or written, never a device, FIFO or socket.

The root is created on first use and remembered by identity (device and inode): a root
that is later replaced (by a link, or by another directory) is refused, not followed. A
root that was merely deleted is created again. Writes go to a temporary file in the same
directory and replace the target with `os.replace`, so a reader never sees half a file.

Every failure is a `WorkspaceError` whose message names the path and the reason; file
system errors are translated, never passed through raw. Needs a POSIX system (`dir_fd`).
Gate 2 and the root's identity are `root`'s, gate 3 and the atomic write `descriptors'`;
`Workspace._place` takes a path through all three.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Callable, Iterator
from pathlib import Path

from retinue_workspace.descriptors import TEMP_PREFIX, OpenFile, open_dirs, open_in, replace
from retinue_workspace.errors import WorkspaceError, translate
from retinue_workspace.listing import MAX_SCAN_ENTRIES, Entry, Listing, entry_at
from retinue_workspace.paths import (
    DEFAULT_PATTERN,
    compile_pattern,
    display,
    is_journal_name,
    parse_path,
)
from retinue_workspace.root import Root
from retinue_workspace.text import (
    as_text,
    describe_binary,
    encode_text,
    human_size,
    line_count,
    number_lines,
)

#: `TEMP_PREFIX` and `OpenFile` are named here too, where they were before `descriptors`.
__all__ = ["DEFAULT_READ_LINES", "TEMP_PREFIX", "OpenFile", "Workspace"]

DEFAULT_READ_LINES = 2000
"""How many lines one `workspace_read` shows unless the caller asks for fewer."""


class Workspace:
    """One directory that a set of file operations cannot leave."""

    def __init__(
        self,
        root: str | os.PathLike[str],
        *,
        max_file_bytes: int = 10 * 1024 * 1024,
        max_read_chars: int = 100_000,
        max_list_entries: int = 500,
    ) -> None:
        if os.open not in os.supports_dir_fd:
            raise WorkspaceError("the workspace needs a POSIX system (os.open with dir_fd)")
        self._root = Path(os.path.abspath(os.fspath(root)))
        self.max_file_bytes = max_file_bytes
        self.max_read_chars = max_read_chars
        self.max_list_entries = max_list_entries
        self._root_dir = Root(self._root)

    @property
    def root(self) -> Path:
        """The root directory, as configured (absolute)."""
        return self._root

    def open_root(self) -> int:
        """A descriptor of the root (created if missing, refused if replaced); close it after."""
        return self._root_dir.open()

    # ------------------------------------------------------------------ operations

    def read(self, path: str, offset: int = 0, limit: int = DEFAULT_READ_LINES) -> str:
        """Lines of a text file, numbered from 1; a binary file is described instead."""
        if offset < 0:
            raise WorkspaceError(f"offset must be 0 or more, not {offset}")
        if limit < 1:
            raise WorkspaceError(f"limit must be 1 or more, not {limit}")
        with self.open(path) as file:
            data = self._read_whole(file)
        text = as_text(data)
        if text is None:
            return describe_binary(file.path, data)
        return number_lines(file.path, text, offset, limit, self.max_read_chars)

    def write(self, path: str, content: str) -> str:
        """Create or replace a file with `content` (UTF-8), creating its directories."""
        if not isinstance(content, str):
            raise WorkspaceError(f"content must be text, not {type(content).__name__}")
        data = encode_text(content)
        if len(data) > self.max_file_bytes:
            raise WorkspaceError(
                f"the content is {human_size(len(data))}; files in this workspace may hold "
                f"at most {human_size(self.max_file_bytes)}"
            )
        with self._place(path, create_dirs=True) as (dir_fd, name, shown):
            existed = replace(dir_fd, name, shown, data, expect=None)
        verb = "Replaced" if existed else "Created"
        return f"{verb} {shown} ({human_size(len(data))}, {line_count(content)})."

    def put(self, path: str, data: bytes) -> None:
        """Create or replace a file with `data` as it is (an undo restoring a version)."""
        if len(data) > self.max_file_bytes:
            raise WorkspaceError(f"{path} would hold more than {human_size(self.max_file_bytes)}")
        with self._place(path, create_dirs=True) as (dir_fd, name, shown):
            replace(dir_fd, name, shown, data, expect=None)

    def edit(self, path: str, old: str, new: str) -> str:
        """Replace the one occurrence of `old` in a text file with `new`."""
        if not isinstance(old, str) or not isinstance(new, str):
            raise WorkspaceError("the old and the new text must both be text")
        if not old:
            raise WorkspaceError("the text to replace is empty; give the exact text to change")
        with self._place(path) as (dir_fd, name, shown):
            with open_in(dir_fd, name, shown) as file:
                data = self._read_whole(file)
                before = os.fstat(file.stream.fileno())
            text = as_text(data)
            if text is None:
                raise WorkspaceError(f"{shown} is not a text file; it cannot be edited")
            count = text.count(old)
            if count == 0:
                raise WorkspaceError(
                    f"the text to replace does not occur in {shown}; read the file and copy "
                    "the text exactly, whitespace included"
                )
            if count > 1:
                raise WorkspaceError(
                    f"the text to replace occurs {count} times in {shown}; include more of "
                    "the surrounding text so that it occurs exactly once"
                )
            at = text.index(old)
            updated = text[:at] + new + text[at + len(old) :]
            data = encode_text(updated)
            if len(data) > self.max_file_bytes:
                raise WorkspaceError(
                    f"after the edit {shown} would hold {human_size(len(data))}; files in this "
                    f"workspace may hold at most {human_size(self.max_file_bytes)}"
                )
            replace(dir_fd, name, shown, data, expect=before)
        line = text.count("\n", 0, at) + 1
        return f"Edited {shown}: replaced one occurrence at line {line}."

    def delete(self, path: str) -> str:
        """Delete a file, a link (never what it points to) or an empty directory."""
        with self._place(path, follow_last=False) as (dir_fd, name, shown):
            try:
                info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
            except OSError as exc:
                raise translate(exc, "delete", shown) from None
            try:
                if stat.S_ISDIR(info.st_mode):
                    os.rmdir(name, dir_fd=dir_fd)
                    return f"Deleted the empty directory {shown}."
                os.unlink(name, dir_fd=dir_fd)
            except OSError as exc:
                if exc.errno in (errno.ENOTEMPTY, errno.EEXIST):
                    raise WorkspaceError(
                        f"{shown} is a directory that is not empty; delete what it holds first"
                    ) from None
                raise translate(exc, "delete", shown) from None
        if stat.S_ISLNK(info.st_mode):
            return f"Deleted the link {shown} (what it pointed to is untouched)."
        return f"Deleted {shown}."

    def listing(self, pattern: str = DEFAULT_PATTERN) -> Listing:
        """Everything whose path matches `pattern`, sorted by path (at most `max_list_entries`)."""
        compiled = compile_pattern(pattern)
        matched, cut = self._scan(compiled.matches, compiled.depth, files_only=False)
        matched.sort(key=lambda entry: entry.path)
        return Listing(
            pattern=compiled.text,
            entries=tuple(matched[: self.max_list_entries]),
            total=len(matched),
            scan_cut=cut,
        )

    def match_files(self, pattern: str) -> tuple[list[str], bool]:
        """The files (and links) matching `pattern`, sorted; and whether the scan was cut."""
        compiled = compile_pattern(pattern)
        matched, cut = self._scan(compiled.matches, compiled.depth, files_only=True)
        return sorted(entry.path for entry in matched), cut

    def exists(self, path: str) -> bool:
        """Whether `path` names something inside the workspace (never raises)."""
        try:
            with self._place(path, follow_last=False) as (dir_fd, name, _):
                os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        except (WorkspaceError, OSError):
            return False
        return True

    def where(self, path: str, *, follow_last: bool = True) -> str:
        """Where `path` leads in the workspace, its links resolved (`notes/a.md`)."""
        with self._place(path, follow_last=follow_last) as (_, name, shown):
            del name
            return shown

    @contextlib.contextmanager
    def open(self, path: str) -> Iterator[OpenFile]:
        """A regular file of the workspace, open for reading; refused if it is anything else."""
        with self._place(path) as (dir_fd, name, shown), open_in(dir_fd, name, shown) as f:
            yield f

    # ------------------------------------------------------------------ the three gates
    @contextlib.contextmanager
    def _place(
        self, path: str, *, create_dirs: bool = False, follow_last: bool = True
    ) -> Iterator[tuple[int, str, str]]:
        """The open directory that holds `path`, its name there, and how to show it.

        Links are resolved first (the whole path, or all but its last component with
        `follow_last=False`) and must stay inside the root; then the directories are opened
        from the root one by one without following links.
        """
        parts = parse_path(path)
        if not parts:
            raise WorkspaceError(
                "that is the workspace itself; name a file inside it, such as 'notes.txt'"
            )
        if parts[-1].startswith(TEMP_PREFIX):
            raise WorkspaceError(f"names starting with {TEMP_PREFIX!r} are reserved")
        root_fd = self._root_dir.open()
        try:
            resolved = self._root_dir.resolve(parts, path, follow_last=follow_last)
            if not resolved:
                raise WorkspaceError(
                    f"{path!r} is a link to the workspace itself; name a file inside it"
                )
            dir_fd = open_dirs(root_fd, resolved[:-1], create=create_dirs, path=path)
            try:
                yield dir_fd, resolved[-1], display(resolved)
            finally:
                if dir_fd != root_fd:
                    os.close(dir_fd)
        finally:
            os.close(root_fd)

    def _read_whole(self, file: OpenFile) -> bytes:
        if file.size > self.max_file_bytes:
            raise WorkspaceError(
                f"{file.path} holds {human_size(file.size)}; this workspace reads files of at "
                f"most {human_size(self.max_file_bytes)}"
            )
        data = file.stream.read(self.max_file_bytes + 1)
        if len(data) > self.max_file_bytes:
            raise WorkspaceError(
                f"{file.path} grew beyond {human_size(self.max_file_bytes)} while being read"
            )
        return data

    def _scan(
        self, accept: Callable[[str], bool], depth: int | None, *, files_only: bool
    ) -> tuple[list[Entry], bool]:
        """Walk the tree without following links; the entries `accept` takes, and if cut short."""
        root_fd = self._root_dir.open()
        found: list[Entry] = []
        seen = 0
        try:
            for top, dirnames, filenames, top_fd in os.fwalk(
                ".", dir_fd=root_fd, follow_symlinks=False
            ):
                prefix = "" if top == "." else top[2:] + "/"
                dirnames[:] = [name for name in dirnames if not is_journal_name(name)]
                subdirs = list(dirnames)
                if depth is not None and prefix.count("/") + 1 >= depth:
                    dirnames.clear()  # entries below this level are too deep to match
                for name in subdirs:  # links to directories are here too, not followed
                    seen += 1
                    if not files_only and accept(prefix + name):
                        found.append(entry_at(prefix + name, name, top_fd))
                for name in filenames:
                    seen += 1
                    if is_journal_name(name):
                        continue
                    if seen > MAX_SCAN_ENTRIES:
                        return found, True
                    if name.startswith(TEMP_PREFIX) or not accept(prefix + name):
                        continue
                    found.append(entry_at(prefix + name, name, top_fd))
                if seen >= MAX_SCAN_ENTRIES:
                    return found, True
        finally:
            os.close(root_fd)
        return found, False
