"""`--message`: one request, the team until it is idle, the answers, an exit status.

Exit 0 when an answer reached the person, 1 when only failures did (or nothing, or the
team was still busy at the timeout, or loop detection stopped the work: its notice is no
answer), 130 when the person pressed Ctrl-C. The first Ctrl-C stops the running work and
waits for the team to settle; a second one quits at once. The answers are printed whole on
stdout, control characters escaped (as Markdown at a terminal); `--json` keeps them exact.
"""

from __future__ import annotations

import sys
import threading
from typing import Any

from retinue.actors.address import ActorAddress
from retinue.actors.errors import IdleTimeoutError
from retinue.actors.messages import EventMessage, Message, SentMessage
from retinue.agent.cancel import STOP_COMMAND
from retinue.agent.events import ChainStoppedEvent
from retinue.agent.failures import FailureNotice
from retinue.agent.messages import AgentMessage
from retinue.console import JsonTranscript, TeamTracker
from retinue.console.text import clean
from retinue.team.subscriber import EventSubscriber
from retinue.teamfile import RunningTeam

INTERRUPTED = 130


class PersonInbox(EventSubscriber):
    """Every message delivered to the person, in order; who is working (to stop them); and
    the notices of loops stopped, which are news but no answer."""

    def __init__(self, person: ActorAddress) -> None:
        self.person = person
        self.tracker = TeamTracker()
        self._lock = threading.Lock()
        self._messages: list[AgentMessage] = []
        self._loop_notices: list[AgentMessage] = []
        self._loop_finders: list[str] = []  # whose next word to the person is a loop notice

    def on_message(self, message: Message) -> None:
        self.tracker.add(message)
        if isinstance(message, EventMessage):
            event = message.event
            if isinstance(event, ChainStoppedEvent) and event.stop.kind == "loop":
                with self._lock:
                    self._loop_finders.append(event.agent.name)
            return
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
                sender = sent.sender.name if sent.sender is not None else None
                if sender in self._loop_finders:  # the finder tells the person right away
                    self._loop_finders.remove(sender)
                    self._loop_notices.append(sent)
                else:
                    self._messages.append(sent)

    def answers(self) -> list[AgentMessage]:
        with self._lock:
            return [m for m in self._messages if not isinstance(m, FailureNotice)]

    def loop_notices(self) -> list[AgentMessage]:
        with self._lock:
            return list(self._loop_notices)

    def failures(self) -> list[FailureNotice]:
        with self._lock:
            return [m for m in self._messages if isinstance(m, FailureNotice)]


def _stop_working(running: RunningTeam, tracker: TeamTracker) -> None:
    for name in tracker.working():
        member = tracker.member(name)
        if member is not None:
            running.send(STOP_COMMAND, to=member)


def run_once(
    running: RunningTeam,
    inbox: PersonInbox,
    text: str,
    *,
    timeout: float,
    transcript: JsonTranscript | None,
) -> int:
    """Send `text`, wait for quiet, report; the exit status."""
    status = "answered"
    interrupts = 0
    unsent = True
    while True:
        try:
            if unsent:  # a Ctrl-C while the send is still on its way is a Ctrl-C like any
                unsent = False
                running.send(text)
            running.wait_idle(timeout)
            break
        except IdleTimeoutError as exc:
            status = "timeout"
            print(f"retinue run: {exc}", file=sys.stderr)
            break
        except KeyboardInterrupt:
            interrupts += 1
            status = "interrupted"  # what arrived is still printed; the exit says it was cut
            if interrupts > 1:
                break
            print("retinue run: stopping the running work; Ctrl-C again to quit", file=sys.stderr)
            _stop_working(running, inbox.tracker)
    answers, failures, loops = inbox.answers(), inbox.failures(), inbox.loop_notices()
    if status == "answered" and loops:
        status = "loop"
    elif status == "answered" and not answers:
        status = "failed" if failures else "unanswered"
    code = {"answered": 0, "interrupted": INTERRUPTED}.get(status, 1)
    if transcript is not None:
        transcript.write(_result(status, code, answers, [*failures, *loops]))
        transcript.close()  # the result is the last line, whatever the shutdown records
    else:
        for notice in [*failures, *loops]:
            print(f"retinue run: {clean(notice.content)}", file=sys.stderr)
        if status == "unanswered":
            print("retinue run: the team went quiet without answering", file=sys.stderr)
        if answers:
            print_answers([answer.content for answer in answers])
    return code


def print_answers(texts: list[str]) -> None:
    """The answers on stdout, escaped; rendered as Markdown when stdout is a terminal."""
    if not sys.stdout.isatty():
        print("\n\n".join(clean(text) for text in texts))
        return
    from rich.console import Console

    from retinue.console.markdown import LineMarkdown

    out = Console(highlight=False, emoji=False)
    for text in texts:
        out.print(LineMarkdown(clean(text)))


def _result(
    status: str, code: int, answers: list[AgentMessage], failures: list[AgentMessage]
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
