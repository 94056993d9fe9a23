"""`Root`: the workspace's directory, held by identity, and where a path's links lead in it.

Gate 2 of `files`: a path's links are resolved and must stay inside the root. The root is
created on first use and remembered by device and inode, so a root later replaced (by a
link, or by another directory) is refused rather than followed; one merely deleted is
created again.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from retinue_workspace.descriptors import DIR_FLAGS
from retinue_workspace.errors import WorkspaceError


class Root:
    """The root directory of one workspace: opened by descriptor, checked each time."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        #: The root with its links resolved, once first opened.
        self.real: str | None = None
        self._identity: tuple[int, int] | None = None

    def open(self) -> int:
        """A descriptor of the root: created if missing, refused if replaced."""
        with self._lock:
            if self.real is None:
                return self._first_open()
            try:
                fd = os.open(self.real, DIR_FLAGS)
            except FileNotFoundError:
                return self._first_open()
            except OSError as exc:
                raise WorkspaceError(
                    f"the workspace root {self.real} was replaced by a link or a file "
                    f"({exc.strerror}); refusing to use it"
                ) from None
            info = os.fstat(fd)
            if (info.st_dev, info.st_ino) != self._identity:
                os.close(fd)
                raise WorkspaceError(
                    f"the workspace root {self.real} was replaced by another directory; "
                    "refusing to use it"
                )
            return fd

    def _first_open(self) -> int:
        """Create the root if needed and remember what it is (called under the lock)."""
        target = self.real or str(self.path)
        try:
            os.makedirs(target, exist_ok=True)
            real = os.path.realpath(target)
            if self.real is not None and real != self.real:
                raise WorkspaceError(
                    f"the workspace root {self.real} now leads to {real}; refusing to use it"
                )
            fd = os.open(real, DIR_FLAGS)
        except OSError as exc:
            raise WorkspaceError(
                f"the workspace root {target} cannot be used: {exc.strerror or exc}"
            ) from None
        info = os.fstat(fd)
        self.real, self._identity = real, (info.st_dev, info.st_ino)
        return fd

    def resolve(self, parts: tuple[str, ...], path: str, *, follow_last: bool) -> tuple[str, ...]:
        """`parts` with every link resolved; refused when that leads outside the root."""
        assert self.real is not None
        root = self.real
        head, last = (parts, None) if follow_last else (parts[:-1], parts[-1])
        real = os.path.realpath(os.path.join(root, *head))
        if real != root and not real.startswith(root.rstrip(os.sep) + os.sep):
            raise WorkspaceError(
                f"{path!r} leads outside the workspace through a symbolic link; refused"
            )
        relative = os.path.relpath(real, root)
        resolved = () if relative == "." else tuple(relative.split(os.sep))
        return resolved if last is None else (*resolved, last)
