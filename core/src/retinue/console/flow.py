"""`Console`: a team's flow printed as it happens, for a terminal or a log.

One line per thing a person watching wants to know: who sent what to whom and with which
intent, who was hired and who left, what could not be delivered, which run was stopped or
hit its limit. What a person is told is printed whole, its lines kept (as Markdown at a
terminal); the other messages are one line each, folded to the terminal's width or cut to
`limit` characters elsewhere (`print_last` shows the last of them whole). `verbose=True`
adds tool calls, every run's end with its usage, members started directly, errors and
runtime messages, and prints every text whole. On a terminal a status line at the bottom
names the agents working right now, above it what they are writing to the person when the
console listens to the team's outputs (`listen_to_outputs(console)`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import IO, Any

from rich.console import Console as RichConsole
from rich.console import Group, RenderableType
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
from retinue.agent.events import CommandsAnnouncedEvent, RoutingSkippedEvent
from retinue.agent.failures import FailureNotice
from retinue.agent.messages import AgentMessage
from retinue.console.markdown import LineMarkdown
from retinue.console.stream import AnswerDrafts
from retinue.console.text import clean, shorten
from retinue.console.tracker import TeamTracker
from retinue.console.usage import usage_table
from retinue.llm.events import (
    LlmUsageEvent,
    ModelMessageEvent,
    RunFinishedEvent,
    RunStartedEvent,
    ToolCallEvent,
    ToolDefinitionsEvent,
)
from retinue.llm.run_report import describe_usage
from retinue.llm.tool_calls import ToolCallFinishedEvent, ToolCallStartedEvent
from retinue.team.subscriber import EventSubscriber

INTENT_STYLES = {
    "request": "yellow",
    "response": "green",
    "instruction": "magenta",
    "notification": "blue",
    "acknowledgment": "dim",
}

#: Events whose news is shown another way: the status line, a run's end, `/help`.
_SHOWN_OTHERWISE = (
    RunStartedEvent,
    ModelMessageEvent,
    LlmUsageEvent,
    CommandsAnnouncedEvent,
    ToolCallStartedEvent,  # the ledger's records of a call its `ToolCallEvent` shows
    ToolCallFinishedEvent,
    ToolDefinitionsEvent,  # what a replay compares, not news
)

#: Runs ending so are shown without `verbose`; the others are news elsewhere (a completed
#: run's messages, an interrupted run's notice to the person, a failed turn's notice).
_NEWS_STATUSES = frozenset({"usage_limit"})


class Console(EventSubscriber):
    """Subscribe it to a team (`team.subscribe(Console())`) to watch the team work.

    `file`: where to print (default: standard output). `verbose`: everything, texts whole.
    `limit`: how many characters of a text a shortened line shows. `status`: the line of
    who is working, live at the bottom of a terminal; `None` (the default) shows it on a
    terminal only, `True` also elsewhere (as a plain line each time it changes), `False`
    never (a frontend that shows `tracker.working()` its own way). `answers=False` shows
    what a person is told as a flow line too (for a command that prints the answers
    itself); `echo_person=False` leaves out what the person says (a prompt shows it
    already); `markdown`: answers as Markdown (default: at a terminal).
    """

    def __init__(
        self,
        *,
        file: IO[str] | None = None,
        verbose: bool = False,
        limit: int = 200,
        status: bool | None = None,
        width: int | None = None,
        answers: bool = True,
        echo_person: bool = True,
        markdown: bool | None = None,
    ) -> None:
        self.verbose = verbose
        self.limit = limit
        self.answers = answers
        self.echo_person = echo_person
        #: Called (from any thread) when what the agents are writing to the person changed.
        self.on_drafts_changed: Callable[[], None] | None = None
        self._drafts = AnswerDrafts()
        self._last_flow: AgentMessage | None = None
        #: What the record has shown so far: members, who is working, usage, commands.
        self.tracker = TeamTracker()
        self.rich = RichConsole(file=file, width=width, highlight=False, markup=False, emoji=False)
        terminal = self.rich.is_terminal
        self.rich.soft_wrap = not terminal  # a log or a pipe gets whole lines, unwrapped
        self.markdown = terminal if markdown is None else markdown
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
        self._forget_drafts(message)
        changes_work = isinstance(message, StopMessage) or (
            isinstance(message, EventMessage)
            and isinstance(message.event, RunStartedEvent | RunFinishedEvent)
        )
        if changes_work:
            self._update_status()

    def on_stop(self) -> None:
        self.close()

    # ------------------------------------------------------------------ the output listener
    def on_output(self, agent: str, run_id: str, output: Any) -> None:
        """A run's output so far (`listen_to_outputs`): its text for the person is shown live."""
        people = [m.name for m in self.tracker.members() if m.is_user_proxy]
        if self._drafts.update(agent, run_id, output, people):
            self._drafts_changed()

    def drafts(self) -> list[tuple[str, str]]:
        """(agent, text cleaned) for what each agent is writing to the person right now."""
        return [(agent, clean(text)) for agent, text in self._drafts.current()]

    def draft_lines(self, width: int, height: int) -> list[str]:
        """The drafts as at most `height` lines of `width`: the end of each, under its writer."""
        lines: list[str] = []
        for agent, text in self.drafts():
            lines.append(f"{agent} is writing:")
            lines += [line.plain for line in Text(text).wrap(self.rich, max(width, 10))]
        return lines[-height:] if height > 0 else []

    def _forget_drafts(self, message: Message) -> None:
        """A draft ends with its message delivered, or with its run."""
        gone = False
        if isinstance(message, SentMessage) and message.message.sender is not None:
            recipient = message.message.recipient
            if recipient is not None and recipient.is_user_proxy:
                gone = self._drafts.drop(message.message.sender.name)
        elif isinstance(message, EventMessage) and isinstance(message.event, RunFinishedEvent):
            gone = self._drafts.drop(message.event.agent_name, message.event.run_id)
        if gone:
            self._drafts_changed()

    def _drafts_changed(self) -> None:
        callback = self.on_drafts_changed
        if callback is not None:
            callback()

    # ------------------------------------------------------------------ printing
    def print(self, renderable: RenderableType) -> None:
        """Print above the status line (from any thread)."""
        with self._lock:
            self.rich.print(renderable)

    def note(self, text: str, style: str = "dim") -> None:
        """A line of the frontend's own (a hint, an error of the person's input)."""
        self.print(Text(clean(text), style=style))

    def print_last(self) -> None:
        """The last message shown as a one-line flow line, whole (what `/last` prints)."""
        last = self._last_flow
        if last is None:
            self.note("no message between agents yet")
            return
        self.print(self._whole(last))

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
    def render(self, message: Message) -> RenderableType | None:
        """What one recorded message shows, or None when it is not shown."""
        for kind, render in self._renderers:
            if isinstance(message, kind):
                return render(self, message)
        return None

    def _sent(self, report: SentMessage) -> RenderableType | None:
        sent = report.message
        if sent.sender is not None and sent.sender.is_user_proxy and not self.echo_person:
            return None
        if isinstance(sent, AgentMessage):
            to_person = sent.recipient is not None and sent.recipient.is_user_proxy
            if self.verbose or (to_person and self.answers):
                return self._whole(sent)
            self._last_flow = sent
            line = self._head(sent)
            line.append(shorten(sent.content, self.limit), style=_style(sent, to_person))
            if self.rich.is_terminal:  # one row, cut to the terminal's width
                line.truncate(self.rich.width, overflow="ellipsis")
            return line
        head = self._head(sent)
        if isinstance(sent, CancelMessage):
            head.append("[cancel]", style="bold red")
        elif self.verbose:
            head.append(f"[{type(sent).__name__}]", style="dim")
        else:
            return None
        return head

    def _head(self, sent: Message) -> Text:
        """`@Sender → @Recipient  [intent] `: how a message's line begins."""
        sender = sent.sender.name if sent.sender is not None else "outside"
        recipient = sent.recipient.name if sent.recipient is not None else "?"
        head = Text.assemble(_name(sender), " → ", _name(recipient), "  ")
        if isinstance(sent, FailureNotice):
            head.append("[failure] ", style="bold red")
        elif isinstance(sent, AgentMessage):
            head.append(f"[{sent.type}] ", style=INTENT_STYLES.get(sent.type, ""))
        return head

    def _whole(self, sent: AgentMessage) -> RenderableType:
        """A message with its text whole and its lines kept; as Markdown under its head."""
        to_person = sent.recipient is not None and sent.recipient.is_user_proxy
        text, head = clean(sent.content), self._head(sent)
        if self.markdown:
            head.rstrip()
            return Group(head, LineMarkdown(text, style=_style(sent, False) or "none"))
        head.append(text, style=_style(sent, to_person))
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
        if not self.verbose or isinstance(event, _SHOWN_OTHERWISE):
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

    _renderers: tuple[
        tuple[type[Message], Callable[[Console, Any], RenderableType | None]], ...
    ] = (
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
        """The status line (a spinner and the agents working now), under what they write."""
        working = self.tracker.working()
        spinner = Spinner("dots", text=Text.assemble(("working: ", "dim"), ", ".join(working)))
        width, height = self.rich.size
        drafts = self.draft_lines(width, height - 2)
        return Group(Text("\n".join(drafts)), spinner) if drafts else spinner

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


def _style(sent: AgentMessage, to_person: bool) -> str:
    if isinstance(sent, FailureNotice):
        return "red"
    return "bold" if to_person else ""
