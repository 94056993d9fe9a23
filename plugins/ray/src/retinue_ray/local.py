"""`LocalRayCluster`: a real Ray cluster on this machine's loopback addresses, for tests
and benchmarks: a head on 127.0.0.2 and more nodes on 127.0.0.3, 127.0.0.4, ...

Not 127.0.0.1: Ray takes that address (and `localhost`) to mean "this machine" and swaps
in the address of its network interface, so a head started there would be reached on the
machine's outside address. Every other 127.x address is taken as it is.

Started with Ray's own command (`ray start`), each step bounded in time; `stop()` runs
`ray stop --force`, which ends every Ray process of this user on the machine, so nothing
is left behind even when a start failed half-way. Never an address outside 127.0.0.0/8.
"""

from __future__ import annotations

import logging
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

logger = logging.getLogger(__name__)

#: How long one `ray start` or `ray stop` may take on a loaded machine.
COMMAND_TIMEOUT = 180.0


class LocalRayCluster:
    """A head and `nodes - 1` more Ray nodes on loopback addresses; `address` to connect."""

    def __init__(
        self,
        nodes: int = 2,
        *,
        cpus_per_node: int = 1,
        object_store_bytes: int = 100 * 1024 * 1024,
        python_path: Sequence[str | Path] = (),
    ) -> None:
        if not 1 <= nodes <= 200:  # 127.0.0.2 to 127.0.0.201
            raise ValueError(f"nodes must be 1 to 200, got {nodes}")
        self.nodes = nodes
        self.cpus_per_node = cpus_per_node
        self.object_store_bytes = object_store_bytes
        self.python_path = [str(p) for p in python_path]
        self.port = _free_port()
        self.address = f"{node_ip(1)}:{self.port}"
        self.temp_dir = tempfile.mkdtemp(prefix="rt-ray-")
        self.started = False

    def _ray(self) -> str:
        beside = Path(sys.executable).with_name("ray")
        found = str(beside) if beside.exists() else shutil.which("ray")
        if found is None:
            raise RuntimeError("the `ray` command is not installed (pip install ray)")
        return found

    def _env(self) -> dict[str, str]:
        env = dict(os.environ)
        env["RAY_USAGE_STATS_ENABLED"] = "0"
        paths = [*self.python_path, *filter(None, env.get("PYTHONPATH", "").split(os.pathsep))]
        if paths:
            env["PYTHONPATH"] = os.pathsep.join(paths)
        return env

    def _run(self, *args: str) -> None:
        done = subprocess.run(
            [self._ray(), *args],
            env=self._env(),
            capture_output=True,
            text=True,
            timeout=COMMAND_TIMEOUT,
            check=False,
        )
        if done.returncode != 0:
            raise RuntimeError(
                f"`ray {' '.join(args[:2])}` failed ({done.returncode}): "
                f"{(done.stderr or done.stdout).strip()[-2000:]}"
            )

    def start(self, attempts: int = 2) -> str:
        """Start every node; the address to give `ray.init`. On failure, nothing is left.

        Ray gives a starting node 30 s to register with the head; on a loaded machine that
        can pass, so a failed start is tried again from scratch, `attempts` times in all.
        """
        for attempt in range(1, attempts + 1):
            try:
                return self._start_once()
            except RuntimeError as exc:
                if attempt == attempts:
                    raise
                logger.warning("the Ray cluster did not start (%s); trying again", exc)
                self.port = _free_port()
                self.address = f"{node_ip(1)}:{self.port}"
                self.temp_dir = tempfile.mkdtemp(prefix="rt-ray-")
        raise AssertionError("unreachable")

    def _start_once(self) -> str:
        common = [
            f"--num-cpus={self.cpus_per_node}",
            f"--object-store-memory={self.object_store_bytes}",
            "--disable-usage-stats",
        ]
        try:
            self._run(
                "start",
                "--head",
                f"--node-ip-address={node_ip(1)}",
                f"--port={self.port}",
                "--include-dashboard=false",
                f"--temp-dir={self.temp_dir}",
                "--min-worker-port=20000",
                "--max-worker-port=20999",
                *common,
            )
            for n in range(2, self.nodes + 1):
                self._run(
                    "start",
                    f"--address={self.address}",
                    f"--node-ip-address={node_ip(n)}",
                    f"--min-worker-port={20000 + 1000 * (n - 1)}",
                    f"--max-worker-port={20999 + 1000 * (n - 1)}",
                    *common,
                )
        except BaseException:
            self.stop()
            raise
        self.started = True
        return self.address

    def stop(self) -> None:
        """`ray stop --force`: every Ray process of this user on the machine ends."""
        try:
            self._run("stop", "--force")
        finally:
            self.started = False
            shutil.rmtree(self.temp_dir, ignore_errors=True)

    def __enter__(self) -> LocalRayCluster:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def node_ip(n: int) -> str:
    """The loopback address of the `n`th node (1: the head)."""
    return f"127.0.0.{n + 1}"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind((node_ip(1), 0))
        port: int = probe.getsockname()[1]
        return port
