"""The one error the workspace raises: a request it refuses or cannot carry out.

File-system errors never pass through raw: `translate` says each as a `WorkspaceError`
naming the path, and `require_regular` refuses anything that is not a regular file.
"""

from __future__ import annotations

import errno
import os
import stat


class WorkspaceError(ValueError):
    """Why a workspace operation was refused or failed, in one line a model or a person can act on.

    A `ValueError`, so the command registry hands it to an operator as the command's answer;
    the model's tools turn it into a retry the model can correct.
    """


class WorkspaceNotFoundError(WorkspaceError):
    """The path names nothing in the workspace (media expansion reports it as a miss)."""


def require_regular(info: os.stat_result, shown: str) -> None:
    """Refuse, by what it is, anything but a regular file: a directory, link, device, FIFO."""
    mode = info.st_mode
    if stat.S_ISREG(mode):
        return
    if stat.S_ISDIR(mode):
        raise WorkspaceError(
            f"{shown} is a directory; list it with workspace_list({(shown + '/*')!r})"
        )
    if stat.S_ISLNK(mode):
        raise WorkspaceError(f"{shown} became a symbolic link while being opened; refused")
    kind = (
        "a device"
        if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
        else "a FIFO"
        if stat.S_ISFIFO(mode)
        else "a socket"
        if stat.S_ISSOCK(mode)
        else "not a regular file"
    )
    raise WorkspaceError(f"{shown} is {kind}; only regular files can be read or written")


def translate(exc: OSError, action: str, shown: str) -> WorkspaceError:
    """A file-system error as one line naming the path."""
    if exc.errno == errno.ENOENT:
        return WorkspaceNotFoundError(f"there is no {shown} in the workspace")
    if exc.errno == errno.ENOTDIR:
        return WorkspaceError(f"a part of {shown} is a file, not a directory")
    if exc.errno == errno.ELOOP:
        return WorkspaceError(f"{shown} is a symbolic link that cannot be followed safely")
    reason = exc.strerror or str(exc)
    return WorkspaceError(f"cannot {action} {shown}: {reason[:1].lower()}{reason[1:]}")
