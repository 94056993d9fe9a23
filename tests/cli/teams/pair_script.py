"""The scripted models of pair.toml.

`lead` asks a Helper and reports its answer to the person. A message containing "hold"
holds the lead's model until the test writes to the FIFO named by `PAIR_HOLD` (a run the
test can stop mid-way, without sleeping); "fail" makes the model raise.
"""

from __future__ import annotations

import os
from pathlib import Path

from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo
from retinue.testing import incoming, send

HOLD_ENV = "PAIR_HOLD"


def _hold() -> None:
    fifo = os.environ.get(HOLD_ENV)
    if fifo:
        Path(fifo).read_text()  # blocks until the test opens the FIFO, writes and closes it


def lead(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    got = incoming(messages)
    if got.sender == "@Human":
        if "hold" in got.content:
            _hold()
        if "fail" in got.content:
            raise RuntimeError("the lead's model broke")
        return send(info, ("Helper", "request", f"Help with: {got.content}"))
    return send(info, ("@Human", "response", f"Done: {got.content}"))


def helper(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    got = incoming(messages)
    return send(info, (got.sender, "response", f"helped with {got.content}"))
