"""A stop asked from the page: whom to send `/stop`, and the kernel's answer to each.

Stopping a task sends `/stop` only to its top members (those not set going by another
member working on it): the kernel cascades a stop down the task, so the rest follow. The
report is read from the folded record, where the answer to each `/stop` arrives.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from retinue_web.actions import ActionError, Said

if TYPE_CHECKING:
    from retinue_web.feed import TeamFeed

#: How long a stop waits for the kernel's answer before saying it was sent.
STOP_WAIT = 10.0


def stop_targets(feed: TeamFeed, body: dict[str, Any]) -> list[str]:
    """Whom to send `/stop`: the member named, or the members working on a task who were
    not set going by another member working on it (a stop cascades down to the rest)."""
    member = body.get("member")
    if isinstance(member, str) and member:
        return [member]
    chain = body.get("chain")
    if not isinstance(chain, str) or not chain:
        raise ActionError("name a member or a chain to stop")
    with feed.locked():
        fold = feed.fold
        working = [
            m.name for m in fold.members.values() if m.state == "working" and m.chain == chain
        ]
        set_going = {
            (item["from"], item["to"])
            for item in fold.flow
            if item.get("kind") == "message" and item.get("chain") == chain
        }
        root = fold.chains.get(chain)
    top = [name for name in working if not any((other, name) in set_going for other in working)]
    if top:
        return top
    if root is not None:
        return [root.root]
    raise ActionError("nothing of that task is running")


async def stop_report(feed: TeamFeed, sent: Said) -> dict[str, Any]:
    """The kernel's answer to one `/stop` (what it stopped), once it is in the record."""
    loop = asyncio.get_running_loop()
    event = asyncio.Event()
    key = feed.listen(loop, event)
    try:
        deadline = loop.time() + STOP_WAIT
        while True:
            event.clear()
            found = _answer_to(feed, sent)
            if found is not None:
                return found
            left = deadline - loop.time()
            if left <= 0:
                return {"to": sent.to, "id": sent.id, "text": None, "stopped": []}
            try:
                await asyncio.wait_for(event.wait(), timeout=left)
            except TimeoutError:
                continue
    finally:
        feed.unlisten(key)


def _answer_to(feed: TeamFeed, sent: Said) -> dict[str, Any] | None:
    with feed.locked():
        flow = feed.fold.flow
        answer = None
        stopped: list[str] = []
        for item in reversed(flow):
            if item["pos"] <= sent.position:
                break
            if item.get("parent") == sent.id and item.get("kind") == "message":
                answer = item
            if item.get("event") == "stop" and item.get("from") == sent.to:
                stopped = list(item.get("members", []))
        if answer is None:
            return None
        return {"to": sent.to, "id": sent.id, "text": answer["text"], "stopped": stopped}
