"""`AnswerDrafts`: what each agent is writing to the person right now, from its streamed output.

A console registered as the team's output listener (`listen_to_outputs`) is handed each run's
output as it grows: a partial `StructuredOutput`. The drafts keep, per agent, the text of its
messages addressed to a person, for the console to show live until the message itself is
delivered (and printed whole) or the run ends without it.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import Any


def _key(name: str) -> str:
    return name.strip().lstrip("@").casefold()


class AnswerDrafts:
    """Per agent, the run writing and the text it has written for a person so far."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._drafts: dict[str, tuple[str, str]] = {}  # agent -> (run id, text)

    def update(self, agent: str, run_id: str, output: Any, people: Iterable[str]) -> bool:
        """Fold one partial output of `agent`; whether its draft changed.

        `people` are the names a message to a person may carry (`@Human`, `Human`).
        """
        wanted = {_key(name) for name in people}
        texts = [
            str(getattr(request, "message", ""))
            for request in getattr(output, "messages", None) or ()
            if _key(str(getattr(request, "recipient", ""))) in wanted
        ]
        text = "\n\n".join(t for t in texts if t)
        with self._lock:
            before = self._drafts.get(agent)
            if not text:
                return self._drafts.pop(agent, None) is not None
            self._drafts[agent] = (run_id, text)
            return before != (run_id, text)

    def drop(self, agent: str, run_id: str | None = None) -> bool:
        """Forget `agent`'s draft (only run `run_id`'s, when given); whether there was one."""
        with self._lock:
            draft = self._drafts.get(agent)
            if draft is None or (run_id is not None and draft[0] != run_id):
                return False
            del self._drafts[agent]
            return True

    def current(self) -> list[tuple[str, str]]:
        """(agent, text) for every draft, in the order they began."""
        with self._lock:
            return [(agent, text) for agent, (_, text) in self._drafts.items()]
