"""Which plugin object an exception was raised in, read from its traceback.

A plugin's capability runs inside pydantic-ai's run loop, so when it raises, the agent only
sees the exception arrive from the run. The traceback still holds the frame of the method
that raised; if that frame belongs to one of the plugin objects we hand out, the failure is
the plugin's, and the report should say which plugin to fix or disable.
"""

from __future__ import annotations

from collections.abc import Iterable

# Code that calls back into other code: a frame of these below a plugin object's frame
# means the exception came from further in (a wrap hook's handler), not from the plugin.
_CALLERS = ("pydantic_ai", "pydantic_graph")


def raised_by(exc: BaseException, owners: Iterable[object]) -> object | None:
    """The object among `owners` whose method raised `exc` (or a helper of it), else None."""
    candidates = {id(owner): owner for owner in owners}
    if not candidates:
        return None
    culprit: object | None = None
    traceback = exc.__traceback__
    while traceback is not None:
        frame = traceback.tb_frame
        owner = frame.f_locals.get("self")
        if owner is not None and id(owner) in candidates:
            culprit = candidates[id(owner)]
        elif culprit is not None and _is_caller(frame.f_globals.get("__name__", "")):
            culprit = None
        traceback = traceback.tb_next
    return culprit


def _is_caller(module: str) -> bool:
    return module.split(".", 1)[0] in _CALLERS
