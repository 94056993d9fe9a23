"""`--message`: one request, the team until it is idle, the answers, an exit status.

Exit 0 when an answer reached the person, 1 when only failures did (or nothing, or the
team was still busy at the timeout), 130 when the person pressed Ctrl-C twice. The first
Ctrl-C stops the running work and waits for the team to settle.
"""

from __future__ import annotations

import sys
import threading
from typing import Any

from retinue.actors.address import ActorAddress
from retinue.actors.errors import IdleTimeoutError
from retinue.actors.messages import Message, SentMessage
from retinue.actors.subscriber import EventSubscriber
from retinue.agent.cancel import STOP_COMMAND
from retinue.agent.failures import FailureNotice
from retinue.agent.messages import AgentMessage
from retinue.console import Console, JsonTranscript
from retinue.teamfile import RunningTeam

INTERRUPTED = 130


class PersonInbox(EventSubscriber):
    """Every message delivered to the person, in order."""

    def __init__(self, person: ActorAddress) -> None:
        self.person = person
        self._lock = threading.Lock()
        self._messages: list[AgentMessage] = []

    def on_message(self, message: Message) -> None:
        if not isinstance(message, SentMessage):
            return
        sent = message.message
        recipient = sent.recipient
        if (
            isinstance(sent, AgentMessage)
            and recipient
            and recipient.agent_id == self.person.agent_id
        ):
            with self._lock:
                self._messages.append(sent)

    def answers(self) -> list[AgentMessage]:
        with self._lock:
            return [m for m in self._messages if not isinstance(m, FailureNotice)]

    def failures(self) -> list[FailureNotice]:
        with self._lock:
            return [m for m in self._messages if isinstance(m, FailureNotice)]


def _stop_working(running: RunningTeam, console: Console | None) -> None:
    working = console.tracker.working() if console is not None else []
    members = {m.name: m for m in running.members()}
    targets = [members[n] for n in working if n in members] or [running.entry]
    for member in targets:
        running.send(STOP_COMMAND, to=member)


def run_once(
    running: RunningTeam,
    inbox: PersonInbox,
    text: str,
    *,
    timeout: float,
    console: Console | None,
    transcript: JsonTranscript | None,
) -> int:
    """Send `text`, wait for quiet, report; the exit status."""
    running.send(text)
    status = "answered"
    interrupts = 0
    while True:
        try:
            running.wait_idle(timeout)
            break
        except IdleTimeoutError as exc:
            status = "timeout"
            print(f"retinue run: {exc}", file=sys.stderr)
            break
        except KeyboardInterrupt:
            interrupts += 1
            if interrupts > 1:
                status = "interrupted"
                break
            print("retinue run: stopping the running work; Ctrl-C again to quit", file=sys.stderr)
            _stop_working(running, console)
    answers, failures = inbox.answers(), inbox.failures()
    if status == "answered" and not answers:
        status = "failed" if failures else "unanswered"
    code = {"answered": 0, "interrupted": INTERRUPTED}.get(status, 1)
    if transcript is not None:
        transcript.write(_result(status, code, answers, failures))
    else:
        for failure in failures:
            print(f"retinue run: {failure.content}", file=sys.stderr)
        if status == "unanswered":
            print("retinue run: the team went quiet without answering", file=sys.stderr)
        if answers:
            print("\n\n".join(answer.content for answer in answers))
    return code


def _result(
    status: str, code: int, answers: list[AgentMessage], failures: list[FailureNotice]
) -> dict[str, Any]:
    def brief(message: AgentMessage) -> dict[str, Any]:
        sender = message.sender.name if message.sender is not None else None
        return {"sender": sender, "intent": message.type, "content": message.content}

    return {
        "record": "result",
        "status": status,
        "exit": code,
        "answers": [brief(m) for m in answers],
        "failures": [brief(m) for m in failures],
    }
