"""`Intake`: where messages enter an actor, and the thread it runs in.

What the runtime and its shutdown need of an actor (offer it a message, close it, ask whether
code runs in its thread) lives here and not on the actor: an actor's public methods are what
other actors may call by name, and none of this is for them.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from retinue.actors.mailbox import Letter, Mailbox

if TYPE_CHECKING:
    from retinue.actors.runtime import WorkTracker


class Intake:
    """An actor's mailbox as the runtime fills and closes it; each queued message and each
    requested stop is work the tracker counts until it is done.

    Closed once the actor stops (or the system shuts down): an offer is refused from then on,
    and the sender's runtime turns it into a dead letter.
    """

    __slots__ = ("_lock", "_open", "_stops_owed", "_tracker", "mailbox", "thread", "thread_ident")

    def __init__(self, mailbox: Mailbox, tracker: WorkTracker) -> None:
        self.mailbox = mailbox
        self._tracker = tracker
        self._lock = threading.Lock()
        self._open = True
        self._stops_owed = 0
        #: The actor's thread, once it has started (None before).
        self.thread: threading.Thread | None = None
        self.thread_ident: int | None = None

    def offer(self, message: Any, reply_to: Any = None) -> bool:
        """Queue `message` (answered through `reply_to`, if given); False once closed."""
        with self._lock:
            if not self._open:
                return False
            self._tracker.add()
            self.mailbox.put(Letter(message, reply_to))
        return True

    def close(self) -> None:
        """Refuse every offer from now on; what is queued stays queued."""
        with self._lock:
            self._open = False

    def close_and_drain(self) -> list[Letter]:
        """Close, and take out whatever is queued (a shutdown: nothing more is handled)."""
        with self._lock:
            self._open = False
            return self.mailbox.drain()

    def owe_stop(self) -> bool:
        """Count a stop as owed work until `settle_stops`; False once closed (nothing owed)."""
        with self._lock:
            if not self._open:
                return False
            self._tracker.add()
            self._stops_owed += 1
        return True

    def settle_stops(self) -> None:
        """The actor has left: every stop requested of it is done."""
        with self._lock:
            owed, self._stops_owed = self._stops_owed, 0
        self._tracker.done(owed)

    def enter(self) -> None:
        """The actor's thread has started: remember it."""
        self.thread = threading.current_thread()
        self.thread_ident = threading.get_ident()

    def in_own_thread(self) -> bool:
        """Whether the caller runs in the actor's own thread."""
        return threading.get_ident() == self.thread_ident
