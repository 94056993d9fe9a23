"""Real `retinue resume` processes on one recorded team: one runs it, a second is refused.

The team is recorded and killed mid-conversation as in `test_resume_crash`. With
`RETINUE_CRASH_BLOCK` set, a resume's Worker never answers the message it is owed, so that
resume runs the team until it is killed: the holder the others meet.
"""

from __future__ import annotations

import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest
from resume_helpers import WAIT, env, lines_until, start_and_kill
from retinue import HandledMessage, SentMessage
from retinue.resume import TeamResumedEvent
from retinue.store import LeaseHeldError, open_store
from retinue.team.record_codec import decode

#: Seconds a lease lasts unrenewed in these tests (the holders renew every third of it).
LEASE = "3"


def resume(
    where: str, team_id: str, *, block: bool, prefix: tuple[str, ...] = ()
) -> subprocess.Popen[str]:
    extra = {"RETINUE_LEASE_SECONDS": LEASE, **({"RETINUE_CRASH_BLOCK": "1"} if block else {})}
    return subprocess.Popen(
        [*prefix, sys.executable, "-m", "retinue.cli.main", "resume", team_id, "--store", where],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        env=env(**extra),
    )


def first_to_end(*procs: subprocess.Popen[str]) -> subprocess.Popen[str]:
    """The first of `procs` to exit (each is waited for in a thread of its own)."""
    ended: queue.Queue[subprocess.Popen[str]] = queue.Queue()
    for proc in procs:

        def wait(proc: subprocess.Popen[str] = proc) -> None:
            proc.wait()
            ended.put(proc)

        threading.Thread(target=wait, daemon=True).start()
    try:
        return ended.get(timeout=WAIT)
    except queue.Empty:
        pytest.fail(f"neither resume ended within {WAIT:g}s")


def kill(proc: subprocess.Popen[str]) -> None:
    proc.send_signal(signal.SIGKILL)
    proc.wait(WAIT)


def resumes_recorded(where: str, team_id: str, count: int) -> None:
    """Until the record holds `count` resumes (a holder commits its own a moment after it
    says so); fails past `WAIT`."""
    deadline = time.monotonic() + WAIT
    while True:
        with open_store(where, create=False) as store:
            found = sum(
                isinstance(getattr(decode(r.data), "event", None), TeamResumedEvent)
                for r in store.read(team_id)
            )
        if found >= count:
            return
        assert time.monotonic() < deadline, f"{found} resumes recorded, not {count}"
        threading.Event().wait(0.1)


def check_done_once(where: str, team_id: str, resumes: int) -> None:
    """Every delivered message handled exactly once; `resumes` resumes recorded, no more."""
    with open_store(where, create=False) as store:
        messages = [decode(r.data) for r in store.read(team_id)]
    sent = [m.message.id for m in messages if isinstance(m, SentMessage)]
    handled = Counter(m.message_id for m in messages if isinstance(m, HandledMessage))
    assert len(sent) == 4 and all(handled[i] == 1 for i in sent), handled
    resumed = [m for m in messages if isinstance(getattr(m, "event", None), TeamResumedEvent)]
    assert len(resumed) == resumes


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_two_resumes_at_once_one_runs_the_other_is_refused_and_a_kill_frees_the_team(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    where = str(tmp_path / "team.sqlite")
    if kind == "postgres":
        where = request.getfixturevalue("fresh_postgres")
    team_id = start_and_kill(where)

    both = resume(where, team_id, block=True), resume(where, team_id, block=True)
    try:
        refused = first_to_end(*both)
        (holder,) = [proc for proc in both if proc is not refused]
        assert refused.returncode == 1
        out, err = refused.communicate(timeout=WAIT)
        (line,) = err.splitlines()  # one line, naming the process that runs the team
        assert line.startswith(f"retinue resume: team {team_id} is already run by host ")
        assert f", pid {holder.pid}, since " in line
        assert out == ""
        assert holder.poll() is None  # still running the team
        first = list(lines_until(holder, "resumed team"))
        assert first[-1].startswith(f"resumed team {team_id}")
        resumes_recorded(where, team_id, 1)  # committed in a batch of its own: before the kill
    finally:
        for proc in both:
            if proc.poll() is None:
                kill(proc)

    # the holder died without a word: on this machine its team is free at once
    done = resume(where, team_id, block=False)
    out, err = done.communicate(timeout=WAIT)
    assert done.returncode == 0, err
    assert out.splitlines()[-1] == "nothing is left owed: every delivered message was handled"
    check_done_once(where, team_id, resumes=2)  # the holder's and this one; none refused


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_a_holder_on_another_machine_keeps_its_team_while_it_renews_and_loses_it_at_expiry(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """Another machine, as far as the lease can tell: a process in a pid namespace of its
    own, whose pid means nothing here. SIGKILL ends it and all it runs, as a power loss."""
    if shutil.which("unshare") is None:
        pytest.skip("unshare (util-linux) is not installed")
    probe = subprocess.run(["unshare", "--pid", "--fork", "true"], capture_output=True, check=False)
    if probe.returncode != 0:
        pytest.skip(f"cannot make a pid namespace here: {probe.stderr.decode().strip()}")
    where = str(tmp_path / "team.sqlite")
    if kind == "postgres":
        where = request.getfixturevalue("fresh_postgres")
    team_id = start_and_kill(where)
    store = open_store(where, create=False, lease_seconds=float(LEASE))
    store.take_lease(team_id)  # the killed process's, taken here at once, and let go: the
    store.release_lease(team_id)  # holder, "elsewhere", would wait for its expiry
    holder = resume(where, team_id, block=True, prefix=("unshare", "--pid", "--kill-child"))
    try:
        list(lines_until(holder, "resumed team"))
        taken = store.lease(team_id)
        assert taken is not None and taken.pid != holder.pid  # its pid in its own namespace
        deadline = time.monotonic() + WAIT
        renewed = store.lease(team_id)
        while renewed is not None and renewed.expires <= taken.expires:  # until it renews
            assert time.monotonic() < deadline, "the holder never renewed its lease"
            threading.Event().wait(0.1)
            renewed = store.lease(team_id)
        assert renewed is not None and renewed.expires > taken.expires
        with pytest.raises(LeaseHeldError, match=f"pid {taken.pid}, since "):
            store.take_lease(team_id)  # its first lease has expired; it lives and renewed

        kill(holder)
        killed = time.time()
        while True:  # refused until the lease the holder last renewed expires, then taken
            try:
                store.take_lease(team_id)
                break
            except LeaseHeldError as exc:
                assert time.time() < exc.holder.expires + 1.0
                threading.Event().wait(0.1)
        assert time.time() >= renewed.expires
        assert time.time() - killed <= float(LEASE) + 1.0  # within one lease of the kill
    finally:
        store.close()
        if holder.poll() is None:
            kill(holder)
