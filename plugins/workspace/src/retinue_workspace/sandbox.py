"""Running one shell command in a sandbox rooted at the workspace (bubblewrap).

The command sees a fresh root: `/usr` (and the `/bin`, `/lib*` that lead there) and a few
files of `/etc` read-only, its own `/proc`, a minimal `/dev`, a small `/tmp`, and the
workspace at `/workspace`, the one place it can write; the journal's `.git` is covered. It
has no network (a namespace with no interface up), no other process in sight, no
capability, and, through `prlimit` inside the sandbox, limits on CPU time, memory (address
space), processes and file size. A wall-clock timeout kills it; the sandbox's process 1
dies with it, and the kernel ends every process left in it.

Run as root, bwrap makes the mounts as root and the command runs as `nobody` (`setpriv`):
the kernel never holds root to a process count, so a fork bomb would not be contained.
The workspace's files are handed to `nobody` first; the process count is then `nobody`'s
across the machine.

`sandbox="none"` (a team file's explicit choice) runs the command directly in the workspace
with the same limits but the process count, and no isolation at all.
"""

from __future__ import annotations

import contextlib
import functools
import os
import selectors
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

from retinue_workspace.paths import JOURNAL_DIR, is_journal_name

INSIDE = "/workspace"
"""Where the workspace is inside the sandbox."""

NOBODY = 65534
_ETC = (
    "/etc/alternatives",
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/localtime",
)
_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/tmp", "LANG": "C.UTF-8", "TMPDIR": "/tmp"}
_TMP_BYTES = 64 * 1024 * 1024
_READ = 65536


@dataclass(frozen=True)
class Limits:
    """What one command may use."""

    seconds: int
    memory_bytes: int
    processes: int
    file_bytes: int
    output_bytes: int


@dataclass(frozen=True)
class Outcome:
    """How a command ended and what it printed (stdout and stderr together, bounded)."""

    status: int | None
    """Its exit status; None when it was killed at the time limit."""
    timed_out: bool
    head: bytes
    tail: bytes
    total_bytes: int
    seconds: float


_PROBE = Limits(
    seconds=10, memory_bytes=256 << 20, processes=8, file_bytes=1 << 20, output_bytes=1000
)


@functools.cache
def sandbox_problem() -> str | None:
    """Why no sandbox can be made here, or None when one can (tried once per process)."""
    needed = (_bwrap(), "prlimit", *(["setpriv"] if os.geteuid() == 0 else []))
    missing = [name for name in needed if _which(name) is None]
    if missing:
        return (
            f"{' and '.join(missing)} not found (install Debian's bubblewrap package, "
            "and util-linux for prlimit and setpriv)"
        )
    with tempfile.TemporaryDirectory() as place:
        if os.geteuid() == 0:
            os.chown(place, NOBODY, NOBODY)
        fd = os.open(place, os.O_RDONLY | os.O_DIRECTORY)
        try:
            argv = _bwrap_argv(fd, Path(place), "touch probe", _PROBE)
            try:
                done = subprocess.run(
                    argv, capture_output=True, timeout=30, check=False, **_spawn(fd)
                )
            except (OSError, subprocess.TimeoutExpired) as exc:
                return f"bwrap could not be started: {exc}"
        finally:
            os.close(fd)
        if done.returncode != 0 or not os.path.exists(os.path.join(place, "probe")):
            said = done.stderr.decode("utf-8", "replace").strip().splitlines()
            return f"bwrap cannot create a sandbox here: {said[-1] if said else done.returncode}"
    return None


def run(root_fd: int, root: Path, command: str, limits: Limits, *, isolate: bool) -> Outcome:
    """Run `command` with `sh -c` in the workspace open as `root_fd`; wait for it, bounded."""
    owner = os.fstat(root_fd)
    if isolate:
        if os.geteuid() == 0:
            _give_to_nobody(root_fd)
        argv = _bwrap_argv(root_fd, root, command, limits)
        options = _spawn(root_fd)
    else:
        argv = [*_prlimit(limits, processes=False), "/bin/sh", "-c", command]
        options = Spawn(cwd=str(root), env=dict(_ENV, HOME=str(root)), pass_fds=())
    started = time.monotonic()
    process = subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        **options,
    )
    try:
        head, tail, total, timed_out = _collect(process, limits, started)
    finally:
        _kill(process)
        if isolate and os.geteuid() == 0:  # git trusts a repository its user owns
            os.fchown(root_fd, owner.st_uid, owner.st_gid)
    status = None if timed_out else process.wait()
    return Outcome(status, timed_out, head, tail, total, time.monotonic() - started)


def _bwrap_argv(root_fd: int, root: Path, command: str, limits: Limits) -> list[str]:
    argv = [_which(_bwrap()) or "bwrap", "--die-with-parent", "--new-session"]
    if os.geteuid() == 0:
        # bwrap mounts as root, and the command becomes nobody: no user namespace, whose
        # only mapping would be root, and only the capabilities that change the user.
        argv += ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts"]
        argv += ["--unshare-cgroup-try", "--cap-drop", "ALL"]
        argv += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
        become = [_which("setpriv") or "setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}"]
        become += ["--clear-groups", "--no-new-privs", "--"]
        # bwrap, root without its capabilities, may not enter nobody's directory: nobody does.
        shell = ["/bin/sh", "-c", f'cd {INSIDE} && exec /bin/sh -c "$1"', "sh", command]
    else:
        argv += ["--unshare-all", "--cap-drop", "ALL", "--chdir", INSIDE]
        become, shell = [], ["/bin/sh", "-c", command]
    argv += ["--hostname", "sandbox", "--ro-bind", "/usr", "/usr"]
    for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.islink(top):
            argv += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            argv += ["--ro-bind", top, top]
    argv += ["--perms", "0755", "--dir", "/etc"]
    for path in _ETC:
        argv += ["--ro-bind-try", path, path]
    argv += ["--proc", "/proc", "--dev", "/dev", "--size", str(_TMP_BYTES), "--tmpfs", "/tmp"]
    argv += ["--bind-fd", str(root_fd), INSIDE]
    journal = root / JOURNAL_DIR
    if journal.is_dir() and not journal.is_symlink():
        hidden = f"{INSIDE}/{JOURNAL_DIR}"
        argv += ["--size", "4096", "--tmpfs", hidden, "--remount-ro", hidden]
    argv += ["--clearenv"]
    for key, value in _ENV.items():
        argv += ["--setenv", key, value]
    return [*argv, "--", *become, *_prlimit(limits, processes=True), *shell]


def _prlimit(limits: Limits, *, processes: bool) -> list[str]:
    """`prlimit` with the limits, run inside the sandbox's own user namespace."""
    seconds = max(1, limits.seconds)
    argv = [_which("prlimit") or "prlimit", f"--cpu={seconds}:{seconds + 1}"]
    argv += [f"--as={limits.memory_bytes}", f"--fsize={limits.file_bytes}", "--core=0"]
    if processes:
        argv.append(f"--nproc={limits.processes}")
    return [*argv, "--"]


class Spawn(TypedDict):
    """How a command's process is started."""

    cwd: str
    env: dict[str, str]
    pass_fds: tuple[int, ...]


def _spawn(root_fd: int) -> Spawn:
    """Keep the workspace's descriptor open for bwrap, which mounts it."""
    return Spawn(cwd="/", env=dict(_ENV), pass_fds=(root_fd,))


def _give_to_nobody(root_fd: int) -> None:
    """Hand the workspace's files (never the journal) to nobody, so the command can write them."""
    os.fchown(root_fd, NOBODY, NOBODY)
    for _, dirnames, filenames, top_fd in os.fwalk(".", dir_fd=root_fd, follow_symlinks=False):
        dirnames[:] = [name for name in dirnames if not is_journal_name(name)]
        for name in (*dirnames, *filenames):
            if not is_journal_name(name):
                with contextlib.suppress(OSError):
                    os.chown(name, NOBODY, NOBODY, dir_fd=top_fd, follow_symlinks=False)


def _collect(
    process: subprocess.Popen[bytes], limits: Limits, started: float
) -> tuple[bytes, bytes, int, bool]:
    """Read the output until it closes or time runs out; keep its start and its end."""
    assert process.stdout is not None
    keep_head, keep_tail = limits.output_bytes * 3 // 4, limits.output_bytes // 4
    head, tail, total = bytearray(), bytearray(), 0
    deadline = started + limits.seconds
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return bytes(head), bytes(tail), total, True
            if not selector.select(timeout=left):
                continue
            chunk = os.read(process.stdout.fileno(), _READ)
            if not chunk:
                return bytes(head), bytes(tail), total, False
            total += len(chunk)
            room = keep_head - len(head)
            head += chunk[:room] if room > 0 else b""
            tail += chunk[max(room, 0) :]
            del tail[: max(0, len(tail) - keep_tail)]


def _kill(process: subprocess.Popen[bytes]) -> None:
    """End the command's process group (bwrap's own: the sandbox dies with it)."""
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    if process.stdout is not None:
        process.stdout.close()


def _bwrap() -> str:
    """The bubblewrap program: `RETINUE_BWRAP` when set, else `bwrap` on the PATH."""
    return os.environ.get("RETINUE_BWRAP") or "bwrap"


def _which(name: str) -> str | None:
    return shutil.which(name) or shutil.which(name, path="/usr/bin:/bin")
