"""Scripted models of the crash-resume tests, importable by path (`resume_scripts:worker`).

The Manager hands the person's request to the Worker and reports the result back; the Worker
answers (both start with the team: no plugin is needed). With `RETINUE_CRASH_BLOCK` set, the
Worker's model never answers: it says it was reached (`REACHED`) and waits forever, so its
process can be killed while the team is mid-conversation.
"""

from __future__ import annotations

import os
import threading

from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo
from retinue.testing import incoming, send

BLOCK = "RETINUE_CRASH_BLOCK"
REACHED = threading.Event()


def manager(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    got = incoming(messages)
    if got.sender == "@Human":
        return send(info, ("@Worker", "request", f"task: {got.content}"))
    return send(info, ("@Human", "response", f"done: {got.content}"))


def worker(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    got = incoming(messages)
    if os.environ.get(BLOCK):
        REACHED.set()
        threading.Event().wait()  # mid-conversation until the process is killed
    return send(info, (got.sender, "response", f"result of {got.content}"))
