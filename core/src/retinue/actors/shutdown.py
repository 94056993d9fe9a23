"""The shutdown procedure of the in-process runtime: close, stop, unblock, join by a deadline.

Kept apart from `ActorSystem` because it is the one place that reaches into every actor at
once, and because its order matters: nothing before the final wait may block or hand the
GIL over, or hundreds of busy actors each cost a switch interval.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from retinue.actors.errors import log_failure
from retinue.actors.exit import ended_by, join_at_exit

if TYPE_CHECKING:
    from retinue.actors.actor import Actor
    from retinue.actors.mailbox import Letter
    from retinue.actors.runtime import WorkTracker

logger = logging.getLogger(__name__)


def stop_all(
    actors: Sequence[Actor[Any, Any]],
    tracker: WorkTracker,
    all_stopped: threading.Event,
    deadline: float,
) -> bool:
    """Stop `actors` by `deadline` whatever they do; True if every one has ended by then.

    Each mailbox is closed and emptied (its askers answered), each actor told to stop and
    then to drop what it waits on; `all_stopped` is set by the last one to leave. An actor
    still in a handler at the deadline is logged and its thread joined once more at exit.
    """
    for actor in actors:  # close every mailbox, and queue the stop
        dropped = _refuse(actor.intake.close_and_drain())
        tracker.done(dropped)
        actor.actor_ref.stop(block=False)  # a dead actor's stop just answers False
    for actor in actors:  # then unblock whatever each one waits on
        try:
            actor.on_system_shutdown()
        except Exception as exc:  # noqa: BLE001 - an actor's own hook may raise anything: logged
            log_failure(logger, f"{actor.myAddress.name} failed to prepare for shutdown", exc)
    all_stopped.wait(max(0.0, deadline - time.monotonic()))
    running = [a for a in actors if not _ended_by(a, deadline)]
    if running:
        logger.warning(
            "shutdown's deadline passed before these actors stopped: %s",
            ", ".join(a.myAddress.name for a in running),
        )
        join_at_exit(a.intake.thread for a in running if a.intake.thread is not None)
    return not running


def _ended_by(actor: Actor[Any, Any], deadline: float) -> bool:
    """Whether the actor's thread has ended by `deadline`; no waiting past it."""
    thread = actor.intake.thread
    if thread is None:  # its thread never got going
        return not actor.actor_ref.is_alive()
    if thread is threading.current_thread():  # a shutdown from a handler: still in it
        return False
    return ended_by(thread, deadline)


def _refuse(letters: list[Letter]) -> int:
    """Answer the askers of what a shutdown took out of a mailbox; how many letters went."""
    for letter in letters:
        letter.refuse("system shut down")
    return len(letters)
