"""A stop asked from the page: whom to send `/stop`, and the kernel's answer to each.

Stopping a task sends `/stop` only to its top members (those not set going by another
member working on it): the kernel cascades a stop down the task, so the rest follow. The
report is read from the folded record, where the answer to each `/stop` arrives.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from retinue_web.actions import ActionError, Said
from retinue_web.replies import REPLY_WAIT, reply_to, wait_in_record

if TYPE_CHECKING:
    from retinue_web.feed import TeamFeed

#: How long a stop waits for the kernel's answer before saying it was sent.
STOP_WAIT = REPLY_WAIT


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
    found = await wait_in_record(feed, lambda: _answer_to(feed, sent), STOP_WAIT)
    return found or {"to": sent.to, "id": sent.id, "text": None, "stopped": []}


def _answer_to(feed: TeamFeed, sent: Said) -> dict[str, Any] | None:
    answer = reply_to(feed, sent)
    if answer is None:
        return None
    stopped: list[str] = []
    with feed.locked():
        for item in reversed(feed.fold.flow):
            if item["pos"] <= sent.position:
                break
            if item.get("event") == "stop" and item.get("from") == sent.to:
                stopped = list(item.get("members", []))
    return {"to": sent.to, "id": sent.id, "text": answer["text"], "stopped": stopped}
