"""The kernel's answer to what the page said as the person, found in the record.

A command's answer is a message whose parent is the command (`Said.id`). It reaches the
record a little after the request that sent the command, so an action waits for it, woken
by its feed as records are folded, for at most `REPLY_WAIT` seconds.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from retinue_web.actions import Said
    from retinue_web.feed import TeamFeed

#: How long an action waits for the kernel's answer before saying it was sent.
REPLY_WAIT = 10.0

T = TypeVar("T")


async def wait_in_record(
    feed: TeamFeed, find: Callable[[], T | None], wait: float = REPLY_WAIT
) -> T | None:
    """`find()` once it finds something in `feed`'s fold (tried again as records come), or
    None after `wait` seconds."""
    loop = asyncio.get_running_loop()
    event = asyncio.Event()
    key = feed.listen(loop, event)
    try:
        deadline = loop.time() + wait
        while True:
            event.clear()
            found = find()
            if found is not None:
                return found
            left = deadline - loop.time()
            if left <= 0:
                return None
            try:
                await asyncio.wait_for(event.wait(), timeout=left)
            except TimeoutError:
                continue
    finally:
        feed.unlisten(key)


def reply_to(feed: TeamFeed, sent: Said) -> dict[str, Any] | None:
    """The flow line of the message answering `sent`, once it is folded."""
    with feed.locked():
        for item in reversed(feed.fold.flow):
            if item["pos"] <= sent.position:
                return None
            if item.get("parent") == sent.id and item.get("kind") == "message":
                found: dict[str, Any] = item
                return found
    return None
