"""`tool_answer`: what a card's tool answers, a refusal the model can correct made a retry.

A tool refuses input the model can fix (an unknown id, a path outside the workspace). While
the run has retries left for the tool, the refusal is pydantic-ai's `ModelRetry`: the model
reads the reason and calls again. Once they are spent it is the tool's answer, so the run
goes on rather than failing. No other failure of the action ends the run either: it is
logged and answered in words.

Not imported by `retinue.tools`: it loads pydantic-ai, which card discovery must not.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from pydantic_ai import ModelRetry, RunContext

logger = logging.getLogger(__name__)


def tool_answer(
    ctx: RunContext[Any],
    action: Callable[[], object],
    refusals: type[Exception] | tuple[type[Exception], ...],
) -> str:
    """`action()` as text. One of `refusals` is a `ModelRetry` while the tool's retries
    remain, then the answer `Error: <the refusal>`; any other failure is logged and answered."""
    try:
        return str(action())
    except refusals as exc:
        if ctx.retry < ctx.max_retries:
            raise ModelRetry(str(exc)) from None
        return f"Error: {exc}"
    except Exception as exc:
        tool = ctx.tool_name or "the tool"
        logger.warning("%s failed", tool, exc_info=True)
        return f"Error: {tool} failed ({type(exc).__name__}: {exc})"
