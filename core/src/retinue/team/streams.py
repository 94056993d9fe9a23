"""Listeners to what a team's models write, while they write it.

A frontend that shows an answer as it is written (`retinue chat` at a terminal) registers an
`OutputListener` with the team's orchestrator. Only then do its members' runs stream their
model requests: a team nobody listens to runs exactly as before and pays nothing. What a
listener hears is a preview, never the record: the messages a run sends are delivered and
recorded as always, once the run ends.
"""

from __future__ import annotations

import threading
from typing import Any, Protocol

from retinue.actors import runtime


class OutputListener(Protocol):
    """Hears each run's output as it grows (called on the model loop: never block there)."""

    def on_output(self, agent: str, run_id: str, output: Any) -> None:
        """`output` so far, validated partially (an agent's `StructuredOutput`, say)."""
        ...


class OutputStreams:
    """A team's listeners; added and removed from any thread, read without a lock."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.listeners: tuple[OutputListener, ...] = ()

    def add(self, listener: OutputListener) -> None:
        with self._lock:
            self.listeners = (*self.listeners, listener)

    def remove(self, listener: OutputListener) -> None:
        with self._lock:
            self.listeners = tuple(x for x in self.listeners if x is not listener)


def listeners_here() -> tuple[OutputListener, ...]:
    """The listeners of the team whose member started the code running now (none outside)."""
    member = runtime.lookup(runtime.acting_for() or "")
    team_id = member.myAddress.team_id if member is not None else None
    orchestrator = runtime.lookup(team_id) if team_id else None
    streams = getattr(orchestrator, "output_streams", None)
    return streams.listeners if isinstance(streams, OutputStreams) else ()
