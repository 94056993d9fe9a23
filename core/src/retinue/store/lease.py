"""Team leases: one live owner per team, across processes and machines (docs/record.md).

Whatever runs a team (its orchestrator's recorder, `resume_team`) holds the team's lease: a
row in the store naming the holder (host, pid, since when) and when the lease ends unless
renewed. The holding store renews it from a thread of its own every third of the lease. A
second owner is refused with `LeaseHeldError`. A holder that died is replaced:

- on the same machine (the same host, boot and process namespace) as soon as its process is
  gone: a `SIGKILL`ed team can be resumed at once;
- from another machine once its lease has expired: that machine may have lost power.

A live holder on the same machine is never replaced, however late its renewal (a process
stopped with Ctrl-Z keeps its team). A holder on a machine that could not renew past its
lease (cut off from a PostgreSQL server) may be replaced; its next append is then refused,
so two processes never both write a team's record.
"""

from __future__ import annotations

import logging
import math
import os
import socket
import threading
import uuid
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Protocol

from retinue.store.errors import LeaseHeldError, StoreError

logger = logging.getLogger(__name__)

#: Seconds a lease lasts unless renewed, when the store is given none.
DEFAULT_LEASE_SECONDS = 15.0
LEASE_SECONDS_ENV = "RETINUE_LEASE_SECONDS"


def lease_length(given: float | None = None) -> float:
    """The lease's length: `given`, else `$RETINUE_LEASE_SECONDS`, else 15 seconds."""
    if given is None:
        text = os.environ.get(LEASE_SECONDS_ENV, "").strip()
        if not text:
            return DEFAULT_LEASE_SECONDS
        try:
            given = float(text)
        except ValueError:
            raise StoreError(f"{LEASE_SECONDS_ENV} must be seconds, not {text!r}") from None
    if not (math.isfinite(given) and given > 0):
        raise StoreError(f"a lease must last more than 0 seconds, not {given!r}")
    return given


@dataclass(frozen=True, slots=True)
class Lease:
    """Who holds a team: `owner` (one per holding store), where it runs, until when.

    `machine` names the host, its boot and its process namespace (empty where that cannot be
    read); `process` is the holding process's start time there, so a pid used again by
    another process is not taken for the holder.
    """

    owner: str
    host: str
    pid: int
    machine: str
    process: str
    since: float
    expires: float

    def describe(self) -> str:
        since = datetime.fromtimestamp(self.since).astimezone()
        return f"host {self.host}, pid {self.pid}, since {since.isoformat(' ', 'seconds')}"


def this_process(owner: str, now: float, seconds: float) -> Lease:
    """A lease for this process, from `now` for `seconds`."""
    pid = os.getpid()
    return Lease(
        owner=owner,
        host=socket.gethostname(),
        pid=pid,
        machine=_machine(),
        process=_started(pid),
        since=now,
        expires=now + seconds,
    )


def may_take(current: Lease | None, owner: str, now: float) -> bool:
    """Whether `owner` may hold a lease `current` holds now (see the module docstring)."""
    if current is None or current.owner == owner:
        return True
    here = _machine()
    if here and current.machine == here and current.process:
        return _started(current.pid) != current.process  # its process is gone
    return current.expires <= now


def held_elsewhere(team_id: str, holder: Lease) -> LeaseHeldError:
    """The refusal of a second owner, naming the holder."""
    ends = datetime.fromtimestamp(holder.expires).astimezone().strftime("%H:%M:%S")
    return LeaseHeldError(
        f"team {team_id} is already run by {holder.describe()}: stop that process first "
        f"(its lease ends at {ends} unless it renews it)",
        team_id,
        holder,
    )


@cache
def _machine() -> str:
    """This host, its boot and its pid namespace; empty where /proc cannot tell."""
    try:
        boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
        namespace = os.stat("/proc/self/ns/pid").st_ino
    except OSError:
        return ""
    return f"{socket.gethostname()}/{boot}/{namespace}"


def _started(pid: int) -> str:
    """When process `pid` started (clock ticks since boot), or empty if it runs nowhere."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return ""
    fields = stat.rpartition(")")[2].split()  # after the command name, which may hold spaces
    return fields[19] if len(fields) > 19 else ""


class LeaseStore(Protocol):
    """What a store gives `LeaseKeeper`: the lease row's three writes."""

    def claim_lease(self, team_id: str, owner: str, seconds: float) -> Lease | None: ...

    def renew_lease(self, team_id: str, owner: str, seconds: float) -> bool: ...

    def drop_lease(self, team_id: str, owner: str) -> None: ...

    def lease(self, team_id: str) -> Lease | None: ...


class LeaseKeeper:
    """The leases one store holds, renewed from a daemon thread while any is held."""

    def __init__(self, store: LeaseStore, seconds: float) -> None:
        self.store = store
        self.seconds = seconds
        #: This store's name in the lease rows it writes.
        self.owner = uuid.uuid4().hex
        self._held: dict[str, int] = {}  # team id -> takes not yet released
        self._failing: set[str] = set()
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self._thread: threading.Thread | None = None

    def take(self, team_id: str) -> None:
        """Hold the team (again: each take wants a release); `LeaseHeldError` if another does."""
        with self._lock:
            if self._closed.is_set():
                raise StoreError("the store is closed")
            if team_id in self._held:
                self._held[team_id] += 1
                return
            holder = self.store.claim_lease(team_id, self.owner, self.seconds)
            if holder is not None:
                raise held_elsewhere(team_id, holder)
            self._held[team_id] = 1
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._renew_all, name="retinue-lease", daemon=True
                )
                self._thread.start()

    def release(self, team_id: str) -> None:
        """Give back one take; the last one lets the team go."""
        with self._lock:
            takes = self._held.get(team_id, 0)
            if takes > 1:
                self._held[team_id] = takes - 1
                return
            if not self._held.pop(team_id, 0):
                return
        self._drop(team_id)

    def holds(self, team_id: str) -> bool:
        with self._lock:
            return team_id in self._held

    def close(self) -> None:
        """Let every team go (the store is closing)."""
        with self._lock:
            teams = list(self._held)
            self._held.clear()
            self._closed.set()
        for team_id in teams:
            self._drop(team_id)

    def _drop(self, team_id: str) -> None:
        try:
            self.store.drop_lease(team_id, self.owner)
        except StoreError as exc:
            logger.warning("the lease of team %s could not be given back: %s", team_id, exc)

    def _renew_all(self) -> None:
        while not self._closed.wait(self.seconds / 3):
            with self._lock:
                teams = list(self._held)
                if not teams:
                    self._thread = None
                    return
            for team_id in teams:
                self._renew(team_id)

    def _renew(self, team_id: str) -> None:
        try:
            kept = self.store.renew_lease(team_id, self.owner, self.seconds)
        except StoreError as exc:
            if team_id not in self._failing:
                self._failing.add(team_id)
                logger.warning("the lease of team %s could not be renewed: %s", team_id, exc)
            return
        if team_id in self._failing:
            self._failing.discard(team_id)
            logger.warning("the lease of team %s is renewed again", team_id)
        if kept:
            return
        with self._lock:
            if self._held.pop(team_id, None) is None:
                return  # released meanwhile
        holder = self.store.lease(team_id)
        logger.error(
            "team %s was taken over by %s: this process may no longer record it",
            team_id,
            holder.describe() if holder is not None else "another process",
        )
