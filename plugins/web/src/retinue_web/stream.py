"""The Server-Sent Events stream of one team: its deltas in order, and who is active.

A client resumes where it left (`Last-Event-ID` is a record position); one that fell too
far behind is told to `reset` and load a snapshot. Comment lines keep idle proxies open.
"""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from retinue_web.feed import TeamFeed
    from retinue_web.view import WebView

#: Seconds between two looks at the live team's activity (and keep-alive comments).
TICK = 0.25
#: Seconds of silence after which the stream sends a comment line.
KEEP_ALIVE = 15.0


async def stream(view: WebView, feed: TeamFeed, after: int, bounded: bool) -> AsyncIterator[str]:
    """The deltas after `after`, then each new one as it is folded; activity as it changes."""
    loop = asyncio.get_running_loop()
    wake = asyncio.Event()
    key = feed.listen(loop, wake)
    shown: dict[str, Any] | None = None
    quiet = 0.0
    try:
        yield "retry: 1000\n\n"
        while not view.closing.is_set():
            wake.clear()
            deltas = feed.deltas_after(after, bounded)
            if deltas is None:
                yield "event: reset\ndata: {}\n\n"
                return
            for position, data in deltas:
                yield f"id: {position}\ndata: {data}\n\n"
                after = position
            activity = view.activity(feed.team_id) if feed.live else {}
            if activity != shown:
                shown = activity
                yield f"event: activity\ndata: {json.dumps(activity)}\n\n"
            try:
                await asyncio.wait_for(wake.wait(), timeout=TICK)
                quiet = 0.0
            except TimeoutError:
                quiet += TICK
                if quiet >= KEEP_ALIVE:  # a comment line keeps proxies from closing it
                    quiet = 0.0
                    yield ": still here\n\n"
    finally:
        feed.unlisten(key)
