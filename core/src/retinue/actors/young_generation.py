"""The collector's youngest generation sized to the number of actors running in the process.

CPython walks its youngest generation every 700 net allocations of container objects (gc
threshold 0) and promotes what is still alive. When a team's members take their turns at
once, a turn's temporary objects live as long as the whole wave, so nearly all of them are
promoted, and the oldest generation, which holds every agent, is walked again and again:
with 3,000 agents that was 45% of a turn's CPU, and the share grew with the team
(docs/benchmarks.md, "A turn at 10,000 agents"). A young generation of `PER_ACTOR`
allocations per running actor lets the wave's temporaries die young; a team of up to 100
actors keeps the interpreter's own threshold.

The process's threshold is never lowered, and it is given back when the last actor stops.
Whoever sets the thresholds themselves while actors run (`gc.set_threshold`) is left alone
from then on; `RETINUE_SCALE_GC=0` in the environment turns the sizing off.
"""

from __future__ import annotations

import gc
import os
import threading

#: Young-generation allocations per running actor (700 for 100 actors: CPython's default).
PER_ACTOR = 7


class YoungGeneration:
    """Keeps gc threshold 0 at `PER_ACTOR` per running actor, never below the process's own."""

    def __init__(self, *, enabled: bool = True) -> None:
        self._lock = threading.Lock()
        self._actors = 0
        self._enabled = enabled
        #: The threshold the process had before the first actor (None: not sized now).
        self._own: int | None = None
        #: The threshold last set here, to see whether someone else set one since.
        self._set: int | None = None

    def started(self) -> None:
        self._resize(1)

    def stopped(self) -> None:
        self._resize(-1)

    def _resize(self, change: int) -> None:
        with self._lock:
            self._actors = max(0, self._actors + change)
            if not self._enabled:
                return
            threshold, *older = gc.get_threshold()
            if self._set is not None and threshold != self._set:
                self._enabled = False  # set by someone else: theirs from now on
                return
            if self._own is None:
                self._own = threshold
            wanted = max(self._own, PER_ACTOR * self._actors)
            if self._actors == 0:
                wanted, self._own, self._set = self._own, None, None
            else:
                self._set = wanted
            if wanted != threshold:
                gc.set_threshold(wanted, *older)


#: The process's one sizing, shared by every actor system in it.
YOUNG_GENERATION = YoungGeneration(enabled=os.environ.get("RETINUE_SCALE_GC", "1") != "0")
