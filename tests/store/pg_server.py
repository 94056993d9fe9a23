"""A throwaway PostgreSQL server for the store tests: initdb in a temp dir, a unix socket.

`start_server()` finds the server binaries (`pg_config --bindir`, then Debian's
`/usr/lib/postgresql/<version>/bin`, then `PATH`), runs `initdb` (as the `postgres` system
user when this process is root, since initdb refuses root), starts `postgres` listening on a
socket in the temp dir only (no TCP port), and returns a `Server` whose `stop()` ends it and
removes the directory. `ServerUnavailableError` says why a server could not be started.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path


class ServerUnavailableError(RuntimeError):
    """No PostgreSQL server could be started here (the message says why)."""


@dataclass
class Server:
    root: Path
    bindir: Path
    user: str | None

    @property
    def url(self) -> str:
        return f"postgresql://retinue@/postgres?host={self.root}&port=5432"

    def stop(self) -> None:
        _run(
            self.user,
            [str(self.bindir / "pg_ctl"), "-D", str(self.root / "data"), "-m", "immediate", "stop"],
            check=False,
        )
        shutil.rmtree(self.root, ignore_errors=True)


def find_bindir() -> Path:
    candidates: list[Path] = []
    pg_config = shutil.which("pg_config")
    if pg_config:
        found = subprocess.run([pg_config, "--bindir"], check=False, capture_output=True, text=True)
        candidates.append(Path(found.stdout.strip()))
    candidates += sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)
    initdb = shutil.which("initdb")
    if initdb:
        candidates.append(Path(initdb).parent)
    for bindir in candidates:
        if (bindir / "initdb").exists() and (bindir / "pg_ctl").exists():
            return bindir
    raise ServerUnavailableError(
        "no PostgreSQL server binaries (initdb, pg_ctl) found: install postgresql "
        "(Debian: apt-get install postgresql)"
    )


def _run(user: str | None, argv: list[str], check: bool = True) -> None:
    command = ["runuser", "-u", user, "--", *argv] if user else argv
    done = subprocess.run(command, check=False, capture_output=True, text=True, timeout=120)
    if check and done.returncode != 0:
        raise ServerUnavailableError(
            f"{' '.join(argv[:2])} failed ({done.returncode}): {done.stderr.strip()[-500:]}"
        )


def start_server() -> Server:
    """A running server, or `ServerUnavailableError` naming what is missing."""
    bindir = find_bindir()
    user: str | None = None
    root = Path(tempfile.mkdtemp(prefix="retinue-pg-"))
    if os.geteuid() == 0:  # initdb refuses root: the server runs as the postgres user
        try:
            account = pwd.getpwnam("postgres")
        except KeyError:
            shutil.rmtree(root, ignore_errors=True)
            raise ServerUnavailableError("running as root and there is no postgres user") from None
        if shutil.which("runuser") is None:
            shutil.rmtree(root, ignore_errors=True)
            raise ServerUnavailableError("running as root and runuser is missing")
        os.chown(root, account.pw_uid, account.pw_gid)
        user = "postgres"
    server = Server(root=root, bindir=bindir, user=user)
    try:
        data = root / "data"
        _run(user, [str(bindir / "initdb"), "-D", str(data), "-A", "trust", "-U", "retinue"])
        options = f"-k {root} -c listen_addresses='' -p 5432 -c fsync=off"
        log = root / "server.log"
        _run(
            user,
            [
                str(bindir / "pg_ctl"),
                "-D",
                str(data),
                "-l",
                str(log),
                "-o",
                options,
                "-w",
                "-t",
                "60",
                "start",
            ],
        )
    except BaseException:
        server.stop()
        raise
    return server
