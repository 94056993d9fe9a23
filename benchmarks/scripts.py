"""Scripted models for the benchmarks, importable by path (`benchmarks.scripts:bounce`).

Every function here is async, so pydantic-ai awaits it on the model loop instead of handing
it to a worker thread: the model is "instant" and what is left to measure is the framework.
Each call stamps `CALLS`, which the cases read to time hops without touching the kernel.
"""

from __future__ import annotations

import asyncio
import re
import threading
import time

from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo
from retinue.agent.output import reply_protocol
from retinue.llm.framing import fence
from retinue.testing import incoming, last_prompt, send, user_texts

#: perf_counter() of every scripted model call, in call order (cases clear it).
CALLS: list[float] = []

#: perf_counter() of every `delayed_worker` call (the fan-out's model calls that overlap).
WORKER_CALLS: list[float] = []

#: Seconds a `delayed_worker` call waits, as a real model would (the fan-out case sets it).
WORKER_DELAY = 0.05

HOP = re.compile(r"hop (\d+)/(\d+)")
SENDER = re.compile(r"(?m)^(@\w+) (?:waits for|responds|instructs|notifies|acknowledges)")
ANSWER = re.compile(r"(?m)^@Worker\d* responds:$")
FAN_OUT = re.compile(r"fan out to (\d+)")


def shown(intent: str, sender: str, content: str) -> str:
    """The prompt a `BaseAgent` builds for a message, for the baselines to send the same."""
    return fence(content, header=reply_protocol(intent, sender))


def reset() -> None:
    CALLS.clear()
    WORKER_CALLS.clear()
    CPU_CALLS.clear()


async def bounce(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Ping-pong: `hop n/limit` goes back to the sender as `hop n+1/limit` until the limit.

    A message from @Human starts the ball; it goes to @Pong. At the limit nothing is sent.
    """
    CALLS.append(time.perf_counter())
    prompt = last_prompt(messages)
    hops = HOP.findall(prompt)
    senders = SENDER.findall(prompt)
    if not hops or not senders:
        return send(info)
    n, limit = int(hops[-1][0]), int(hops[-1][1])
    if n >= limit:
        return send(info)
    sender = senders[-1]
    target = "@Pong" if sender == "@Human" else sender
    return send(info, (target, "request", f"hop {n + 1}/{limit}"))


async def silent(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Absorbs the message and sends nothing."""
    CALLS.append(time.perf_counter())
    return send(info)


async def answer_human(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Answers every message with one response to @Human."""
    CALLS.append(time.perf_counter())
    return send(info, ("@Human", "response", "done"))


async def fan_out_manager(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """`fan out to N` from the human: one request to each of @Worker..@WorkerN.

    Every later turn is an answer; once N answers are in the history, tell @Human.
    """
    CALLS.append(time.perf_counter())
    prompt = last_prompt(messages)
    asked = FAN_OUT.search(prompt)
    if asked is not None:
        count = int(asked.group(1))
        names = ["@Worker", *(f"@Worker{i}" for i in range(2, count + 1))]
        return send(info, *((name, "request", "work item") for name in names))
    texts = user_texts(messages)
    wanted = next((int(m.group(1)) for t in texts if (m := FAN_OUT.search(t))), 0)
    answers = sum(len(ANSWER.findall(t)) for t in texts)
    if wanted and answers >= wanted:
        return send(info, ("@Human", "response", f"all {answers} answers in"))
    return send(info)


async def delayed_worker(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Takes `WORKER_DELAY` seconds, as a model would, then answers whoever asked."""
    now = time.perf_counter()
    CALLS.append(now)
    WORKER_CALLS.append(now)
    await asyncio.sleep(WORKER_DELAY)
    senders = SENDER.findall(last_prompt(messages))
    if not senders:
        return send(info)
    return send(info, (senders[-1], "response", "done"))


#: Opened by the mailbox case once the backlog is queued; `held_reader` parks on it.
HOLD = threading.Event()
#: Set by `held_reader` when its first message has parked at `HOLD`.
HELD = threading.Event()
#: process_time() at every `held_reader` mail call: CPU the whole process spent, all threads.
CPU_CALLS: list[float] = []


async def held_reader(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """`hold` parks until `HOLD` opens (the mail piles up meanwhile); every mail is absorbed."""
    if incoming(messages).content.rstrip().endswith("hold"):
        HELD.set()
        await asyncio.get_running_loop().run_in_executor(None, HOLD.wait, 600)
        return send(info)
    CALLS.append(time.perf_counter())
    CPU_CALLS.append(time.process_time())
    return send(info)


#: Closed while the shutdown case's team is busy; `blocked_sync` calls wait on it.
GATE = threading.Event()
#: Released once by every `blocked_sync` or `parked` call that is in its model request.
BUSY = threading.Semaphore(0)


def blocked_sync(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Sync on purpose (the one exception here): pydantic-ai runs it in a worker thread,
    where no cancellation reaches it, so the request stays in until `GATE` opens."""
    BUSY.release()
    GATE.wait(600)
    return send(info)


async def parked(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """A request that never answers: only the run's cancellation ends it."""
    BUSY.release()
    await asyncio.Event().wait()
    return send(info)
