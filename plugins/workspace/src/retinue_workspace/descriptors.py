"""Opening and writing below a directory descriptor, one step at a time, never via a link.

Gate 3 of `files`: directories are opened from the root one by one with `O_NOFOLLOW`, so a
link swapped in after the path was resolved makes the open fail instead of being followed;
what is finally opened is `fstat`ed, so only a regular file is read. A write goes to a
temporary file beside its target and replaces it with `os.replace`: no reader sees half a
file.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from dataclasses import dataclass
from typing import TYPE_CHECKING, BinaryIO

from retinue_workspace.errors import (
    WorkspaceError,
    WorkspaceNotFoundError,
    require_regular,
    translate,
)
from retinue_workspace.paths import display

if TYPE_CHECKING:
    from collections.abc import Iterator

TEMP_PREFIX = ".retinue-tmp-"
"""Names of the temporary files writes go through; reserved, and hidden from listings."""

DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
# O_NONBLOCK: opening a FIFO must not hang; it is refused right after by its fstat.
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_NEW_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


@dataclass(frozen=True)
class OpenFile:
    """A regular file opened for reading inside the workspace."""

    path: str
    """Where it is, relative to the root, links resolved."""
    size: int
    stream: BinaryIO


def open_dirs(root_fd: int, dirs: tuple[str, ...], *, create: bool, path: str) -> int:
    """Open `dirs` below the root one by one, never through a link; create them if asked."""
    current = root_fd
    try:
        for index, name in enumerate(dirs):
            shown = display(dirs[: index + 1])
            try:
                step = os.open(name, DIR_FLAGS, dir_fd=current)
            except FileNotFoundError:
                if not create:
                    raise WorkspaceNotFoundError(
                        f"there is no directory {shown} in the workspace"
                    ) from None
                with contextlib.suppress(FileExistsError):
                    os.mkdir(name, dir_fd=current)
                step = _open_dir_step(name, current, shown, path)
            except OSError as exc:
                raise _dir_refusal(exc, name, current, shown, path) from None
            if current != root_fd:
                os.close(current)
            current = step
    except BaseException:
        if current != root_fd:
            os.close(current)
        raise
    return current


def _open_dir_step(name: str, parent: int, shown: str, path: str) -> int:
    try:
        return os.open(name, DIR_FLAGS, dir_fd=parent)
    except OSError as exc:
        raise _dir_refusal(exc, name, parent, shown, path) from None


def _dir_refusal(exc: OSError, name: str, parent: int, shown: str, path: str) -> Exception:
    with contextlib.suppress(OSError):
        if stat.S_ISLNK(os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode):
            return WorkspaceError(
                f"{shown} became a symbolic link while {path!r} was being opened; refused"
            )
    if exc.errno == errno.ENOTDIR:
        return WorkspaceError(f"{shown} is a file, not a directory")
    return translate(exc, "open", shown)


@contextlib.contextmanager
def open_in(dir_fd: int, name: str, shown: str) -> Iterator[OpenFile]:
    """Open the regular file `name` for reading; anything else is refused unopened."""
    try:
        info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except OSError as exc:
        raise translate(exc, "read", shown) from None
    require_regular(info, shown)
    try:
        fd = os.open(name, _READ_FLAGS, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise WorkspaceError(
                f"{shown} became a symbolic link while it was being opened; refused"
            ) from None
        raise translate(exc, "read", shown) from None
    stream = os.fdopen(fd, "rb")
    with stream:
        info = os.fstat(fd)
        require_regular(info, shown)  # what was opened, not what was looked at
        os.set_blocking(fd, True)
        yield OpenFile(path=shown, size=info.st_size, stream=stream)


def replace(
    dir_fd: int, name: str, shown: str, data: bytes, *, expect: os.stat_result | None
) -> bool:
    """Write `data` to a temporary file beside `name`, then swap it in; True if it existed.

    With `expect`, the file must still be the one that was read (same inode, size and
    modification time), so an edit never overwrites a change made in between.
    """
    try:
        current: os.stat_result | None = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        current = None
    except OSError as exc:
        raise translate(exc, "write", shown) from None
    if current is not None:
        if stat.S_ISDIR(current.st_mode):
            raise WorkspaceError(f"{shown} is a directory; choose a file name inside it")
        if stat.S_ISLNK(current.st_mode):
            raise WorkspaceError(f"{shown} became a symbolic link while being written; refused")
        require_regular(current, shown)
    if expect is not None and (
        current is None
        or (current.st_ino, current.st_size, current.st_mtime_ns)
        != (expect.st_ino, expect.st_size, expect.st_mtime_ns)
    ):
        raise WorkspaceError(f"{shown} changed while it was being edited; read it again")
    temp = f"{TEMP_PREFIX}{secrets.token_hex(8)}"
    try:
        fd = os.open(temp, _NEW_FLAGS, 0o666, dir_fd=dir_fd)
    except OSError as exc:
        raise translate(exc, "write", shown) from None
    try:
        with os.fdopen(fd, "wb") as out:
            if current is not None:
                os.fchmod(out.fileno(), stat.S_IMODE(current.st_mode))
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(temp, dir_fd=dir_fd)
        raise translate(exc, "write", shown) from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp, dir_fd=dir_fd)
        raise
    return current is not None
