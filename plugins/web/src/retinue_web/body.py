"""An action's request body, read within bounds: its size, its nesting, its text.

The page's actions (`say`, `stop`) take a small JSON object of strings. Anything else is
refused here, before the team sees it: a body past `MAX_BODY` unread, one nested past
`MAX_DEPTH` unparsed, a field that is not text the record can keep.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from retinue_web.actions import ActionError

if TYPE_CHECKING:
    from starlette.requests import Request

#: The largest body an action takes, in bytes (a message to a member, a stop): past it the
#: request is refused unread, so no client can make the view hold an unbounded body.
MAX_BODY = 64 * 1024
#: How deep an action's body may nest: its fields are strings, so a deeper one is refused
#: rather than parsed into a recursion Python cannot finish (a 40 KB body nests 20,000 deep).
MAX_DEPTH = 8


async def read_body(
    request: Request, limit: int = MAX_BODY, max_depth: int = MAX_DEPTH
) -> dict[str, Any]:
    """The request's JSON object, read up to `limit` bytes and no further, nesting at most
    `max_depth` levels (an AG-UI run's input is larger and deeper than a page's action)."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise ActionError(f"the body is larger than {limit} bytes")
    raw = bytearray()
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > limit:
            raise ActionError(f"the body is larger than {limit} bytes")
    too_deep = ActionError(f"the body nests deeper than {max_depth} levels")
    try:
        body = json.loads(raw)
    except ValueError:
        raise ActionError("the body is not JSON") from None
    except RecursionError:  # deeper than the parser can go
        raise too_deep from None
    if depth(body) > max_depth:
        raise too_deep
    if not isinstance(body, dict):
        raise ActionError("the body must be a JSON object")
    return body


def text_field(body: dict[str, Any], key: str) -> str:
    """`body[key]` as text the team can keep: a string (missing: empty) of valid Unicode.

    JSON may carry lone surrogates (`"\\ud800"`), which no record or page can encode: they
    are refused here rather than failing later in the store or the stream.
    """
    value = body.get(key, "")
    if not isinstance(value, str):
        raise ActionError(f"{key!r} must be a string")
    try:
        value.encode()
    except UnicodeEncodeError:
        raise ActionError(f"{key!r} is not valid Unicode (it holds a lone surrogate)") from None
    return value


def depth(value: Any) -> int:
    """How deep a parsed JSON value nests, found without recursion."""
    deepest, pending = 0, [(value, 1)]
    while pending:
        item, level = pending.pop()
        deepest = max(deepest, level)
        if isinstance(item, dict):
            pending.extend((child, level + 1) for child in item.values())
        elif isinstance(item, list):
            pending.extend((child, level + 1) for child in item)
    return deepest
