"""`Console`: a team's flow printed as it happens, for a terminal or a log.

One line per thing a person watching wants to know: who sent what to whom and with which
intent, who was hired and who left, what could not be delivered, which run was stopped or
hit its limit. `verbose=True` adds tool calls, every run's end with its usage, members
started directly, errors and runtime messages, and prints texts whole instead of shortened.
On a terminal a status line at the bottom names the agents working right now.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import IO, Any

from rich.console import Console as RichConsole
from rich.console import RenderableType
from rich.live import Live
from rich.spinner import Spinner
from rich.text import Text

from retinue.actors.messages import (
    CancelMessage,
    ErrorMessage,
    EventMessage,
    Message,
    SentMessage,
    StartMessage,
    StopMessage,
)
from retinue.actors.subscriber import EventSubscriber
from retinue.agent.events import RoutingSkippedEvent
from retinue.agent.failures import FailureNotice
from retinue.agent.messages import AgentMessage
from retinue.console.text import clean, shorten
from retinue.console.tracker import TeamTracker
from retinue.console.usage import usage_table
from retinue.llm.events import (
    RunFinishedEvent,
    RunStartedEvent,
    ToolCallEvent,
)
from retinue.llm.run_report import describe_usage

INTENT_STYLES = {
    "request": "yellow",
    "response": "green",
    "instruction": "magenta",
    "notification": "blue",
    "acknowledgment": "dim",
}

#: Runs ending so are shown without `verbose`; the others are news elsewhere (a completed
#: run's messages, an interrupted run's notice to the person, a failed turn's notice).
_NEWS_STATUSES = frozenset({"usage_limit"})


class Console(EventSubscriber):
    """Subscribe it to a team (`team.subscribe(Console())`) to watch the team work.

    `file`: where to print (default: standard output). `verbose`: everything, texts whole.
    `limit`: how many characters of a text a shortened line shows. `status`: the line of
    who is working, live at the bottom of a terminal; `None` (the default) shows it on a
    terminal only, `True` also elsewhere (as a plain line each time it changes), `False`
    never (a frontend that shows `tracker.working()` its own way).
    """

    def __init__(
        self,
        *,
        file: IO[str] | None = None,
        verbose: bool = False,
        limit: int = 200,
        status: bool | None = None,
        width: int | None = None,
    ) -> None:
        self.verbose = verbose
        self.limit = limit
        #: What the record has shown so far: members, who is working, usage, commands.
        self.tracker = TeamTracker()
        self.rich = RichConsole(file=file, width=width, highlight=False, markup=False, emoji=False)
        terminal = self.rich.is_terminal
        self.rich.soft_wrap = not terminal  # a log or a pipe gets whole lines, unwrapped
        self._live_status = terminal and status is not False
        self._plain_status = status is True and not terminal
        self._live: Live | None = None
        self._shown_working: list[str] = []
        self._lock = threading.RLock()
        self._closed = False

    # ------------------------------------------------------------------ the subscriber
    def on_message(self, message: Message) -> None:
        self.tracker.add(message)
        line = self.render(message)
        if line is not None:
            self.print(line)
        changes_work = isinstance(message, StopMessage) or (
            isinstance(message, EventMessage)
            and isinstance(message.event, RunStartedEvent | RunFinishedEvent)
        )
        if changes_work:
            self._update_status()

    def on_stop(self) -> None:
        self.close()

    # ------------------------------------------------------------------ printing
    def print(self, renderable: RenderableType) -> None:
        """Print above the status line (from any thread)."""
        with self._lock:
            self.rich.print(renderable)

    def note(self, text: str, style: str = "dim") -> None:
        """A line of the frontend's own (a hint, an error of the person's input)."""
        self.print(Text(clean(text), style=style))

    def print_usage(self) -> None:
        """The per-agent usage table (what `/usage` shows)."""
        usage = self.tracker.usage()
        if not usage:
            self.note("no model requests yet")
            return
        self.print(usage_table(usage))

    def close(self) -> None:
        """Take the status line away; nothing more is shown live."""
        with self._lock:
            self._closed = True
            if self._live is not None:
                self._live.stop()
                self._live = None

    # ------------------------------------------------------------------ rendering
    def render(self, message: Message) -> Text | None:
        """The line for one recorded message, or None when it is not shown."""
        for kind, render in self._renderers:
            if isinstance(message, kind):
                return render(self, message)
        return None

    def _sent(self, report: SentMessage) -> Text | None:
        sent = report.message
        sender = sent.sender.name if sent.sender is not None else "outside"
        recipient = sent.recipient.name if sent.recipient is not None else "?"
        head = Text.assemble(_name(sender), " → ", _name(recipient), "  ")
        if isinstance(sent, FailureNotice):
            head.append("[failure] ", style="bold red")
            head.append(self._text(sent.content), style="red")
        elif isinstance(sent, AgentMessage):
            head.append(f"[{sent.type}] ", style=INTENT_STYLES.get(sent.type, ""))
            to_person = sent.recipient is not None and sent.recipient.is_user_proxy
            head.append(self._text(sent.content), style="bold" if to_person else "")
        elif isinstance(sent, CancelMessage):
            head.append("[cancel]", style="bold red")
        elif self.verbose:
            head.append(f"[{type(sent).__name__}]", style="dim")
        else:
            return None
        return head

    def _start(self, message: StartMessage) -> Text | None:
        member, parent = message.sender, message.parent
        if member is None:
            return None
        if parent is not None and parent != message.recipient:  # started by a member: a hire
            return Text.assemble(
                ("+ ", "green"),
                _name(parent.name),
                " hired ",
                _name(member.name),
                (f" ({clean(member.role)})", "dim"),
            )
        if not self.verbose:
            return None
        return Text.assemble(
            ("+ ", "green"), _name(member.name), (f" joined ({clean(member.role)})", "dim")
        )

    def _stop(self, message: StopMessage) -> Text | None:
        if message.sender is None or message.shutdown:
            return None
        return Text.assemble(("- ", "red"), _name(message.sender.name), " left the team")

    def _error(self, message: ErrorMessage) -> Text | None:
        if not self.verbose:  # the news of a failure is its notice, shown as a message
            return None
        who = message.sender.name if message.sender is not None else "?"
        text = self._text(f"{message.exception_type}: {message.exception_value}")
        return Text.assemble(("✗ ", "red"), _name(who), ": ", (text, "red"))

    def _event(self, message: EventMessage) -> Text | None:
        event = message.event
        if isinstance(event, RoutingSkippedEvent):
            return Text.assemble(
                ("✗ ", "red"),
                _name(event.agent.name),
                " → ",
                clean(event.recipient),
                (" not delivered: ", "red"),
                self._text(event.reason),
            )
        if isinstance(event, RunFinishedEvent):
            return self._run_finished(event)
        if not self.verbose or isinstance(event, RunStartedEvent):
            return None
        if isinstance(event, ToolCallEvent):
            args = event.args if isinstance(event.args, str) else repr(event.args or {})
            return Text.assemble(
                "  ",
                _name(event.agent_name),
                (" called ", "dim"),
                clean(event.tool_name),
                " ",
                (self._text(args), "dim"),
            )
        who = message.sender.name if message.sender is not None else "?"
        kind = getattr(event, "event_type", None) or type(event).__name__
        return Text.assemble("  ", _name(who), (f" event {clean(str(kind))}", "dim"))

    def _run_finished(self, event: RunFinishedEvent) -> Text | None:
        if not (self.verbose or event.status in _NEWS_STATUSES):
            return None
        style = "dim" if event.status == "completed" else "red"
        line = Text.assemble(
            "  ", _name(event.agent_name), (f" run {event.status.replace('_', ' ')}", style)
        )
        if event.error and event.status != "completed":
            line.append(f": {self._text(event.error)}", style=style)
        usage = self.tracker.run_usage(event.agent_name, event.run_id)
        line.append(f" ({describe_usage(usage)})", style="dim")
        return line

    _renderers: tuple[tuple[type[Message], Callable[[Console, Any], Text | None]], ...] = (
        (SentMessage, _sent),
        (EventMessage, _event),
        (StartMessage, _start),
        (StopMessage, _stop),
        (ErrorMessage, _error),
    )

    def _text(self, text: str) -> str:
        return clean(text) if self.verbose else shorten(text, self.limit)

    # ------------------------------------------------------------------ status
    def status_renderable(self) -> RenderableType:
        """The status line: a spinner and the agents working now."""
        working = self.tracker.working()
        return Spinner("dots", text=Text.assemble(("working: ", "dim"), ", ".join(working)))

    def _update_status(self) -> None:
        working = self.tracker.working()
        with self._lock:
            if self._closed:
                return
            if self._plain_status and working != self._shown_working:
                text = f"· working: {', '.join(working)}" if working else "· idle"
                self.rich.print(Text(text, style="dim"))
            self._shown_working = working
            if not self._live_status:
                return
            if working and self._live is None:
                self._live = Live(
                    get_renderable=self.status_renderable,
                    console=self.rich,
                    transient=True,
                    refresh_per_second=8,
                    redirect_stderr=False,
                )
                self._live.start()
            elif not working and self._live is not None:
                self._live.stop()
                self._live = None


def _name(name: str) -> tuple[str, str]:
    return clean(name), "bold cyan"
