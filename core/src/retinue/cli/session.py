"""The interactive session: what the person types, and what it does to the team.

A line is said to the entry agent; `@Name text` says it to that member (`@Name /command`
too). The command's own slash commands are `/help`, `/usage`, `/last`, `/stop` and `/quit`;
any other `/command` goes to the entry agent, whose command registry answers it. Ctrl-C
stops the running work, a second one in a row quits; Ctrl-D quits.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Literal, Protocol

from rich.table import Table

from retinue.actors.address import ActorAddress
from retinue.agent.cancel import STOP_COMMAND
from retinue.console import Console
from retinue.tools.commands import CommandDescriptor

LOCAL_COMMANDS = {
    "help": "this help",
    "usage": "tokens, requests and cost, per agent",
    "last": "the last message between agents, whole (the flow shows one line of each)",
    "stop": "stop the running work (every agent working now)",
    "quit": "shut the team down and leave (also Ctrl-D)",
}


@dataclass(frozen=True)
class Parsed:
    """One line the person typed, understood."""

    kind: Literal["empty", "say", "local", "error"]
    text: str = ""
    to: str | None = None
    command: str | None = None


def parse_line(line: str) -> Parsed:
    """What a typed line asks for (no team needed: `@Name` is checked by the session)."""
    text = line.strip()
    if not text:
        return Parsed("empty")
    if text.startswith("@"):
        name, _, rest = text.partition(" ")
        rest = rest.strip()
        if name == "@":
            return Parsed("error", "a member's name follows the @: @Name text")
        if not rest:
            return Parsed("error", f"say something after {name}: {name} text")
        return Parsed("say", rest, to=name)
    if text.startswith("/"):
        word, _, rest = text[1:].partition(" ")
        if word in LOCAL_COMMANDS:
            return Parsed("local", rest.strip(), command=word)
    return Parsed("say", text)


class Reader(Protocol):
    """Where lines come from: a terminal prompt, or plain standard input."""

    def read(self) -> str:
        """The next line; `EOFError` at the end, `KeyboardInterrupt` on Ctrl-C."""
        ...


class TeamSeat(Protocol):
    """What a session drives: a `RunningTeam`, or a team resumed from its record."""

    @property
    def entry(self) -> ActorAddress:
        """The member the person talks to by default."""
        ...

    def send(self, text: str, to: ActorAddress | None = None, intent: str = "request") -> None:
        """Say `text` as the person."""
        ...

    def wait_idle(self, timeout: float = 30.0) -> None:
        """Until the team is quiet."""
        ...


#: What a one-agent team cannot use: the team card's hiring, firing and roster commands,
#: the team's budget and loop `/continue`, and `/last` (no messages between agents).
TEAM_CARD = "team"
TEAM_BUILTINS = frozenset({"budget", "continue"})
TEAM_LOCALS = frozenset({"last"})


class Session:
    """The person's side of a running team, driven line by line.

    `solo`: the team is one agent and the person (`retinue chat`): `/help` and Tab leave
    out the commands about a team.
    """

    def __init__(self, running: TeamSeat, console: Console, solo: bool = False) -> None:
        self.running = running
        self.console = console
        self.solo = solo

    @property
    def entry(self) -> ActorAddress:
        return self.running.entry

    def handle(self, line: str) -> bool:
        """Do what `line` asks; False when the person quits."""
        parsed = parse_line(line)
        if parsed.kind == "error":
            self.console.note(parsed.text, style="red")
        elif parsed.kind == "local":
            return self._local(parsed)
        elif parsed.kind == "say":
            self._say(parsed)
        return True

    def _say(self, parsed: Parsed) -> None:
        recipient = self.entry
        if parsed.to is not None:
            found = self.member(parsed.to)
            if found is None:
                self.console.note(
                    f"no member is called {parsed.to}; members: {self.member_names()}",
                    style="red",
                )
                return
            recipient = found
        self.running.send(parsed.text, to=recipient)

    def _local(self, parsed: Parsed) -> bool:
        command = parsed.command
        if command == "quit":
            return False
        if command == "usage":
            self.console.print_usage()
        elif command == "last":
            self.console.print_last()
        elif command == "stop":
            self.stop_work(announce=True)
        else:
            self.console.print(self.help())
        return True

    # ------------------------------------------------------------------ the team
    def members(self) -> list[ActorAddress]:
        return self.console.tracker.members()

    def member(self, name: str) -> ActorAddress | None:
        for member in self.members():
            if member.name.lower() == name.lower():
                return member
        return None

    def member_names(self) -> str:
        return ", ".join(m.name for m in self.members() if not m.is_user_proxy) or "none"

    def stop_work(self, working: list[str] | None = None, announce: bool = False) -> list[str]:
        """Send `/stop` to every agent with a run in flight (or to `working`); their names."""
        if working is None:
            working = self.console.tracker.working()
        for name in working:
            member = self.member(name)
            if member is not None:
                self.running.send(STOP_COMMAND, to=member)
        if announce and not working:
            self.console.note("nothing is running")
        return working

    def help(self) -> Table:
        """The session's commands, then the entry agent's, then who is in the team."""
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold")
        table.add_column()
        table.add_row("text", f"say it to {self.entry.name}")
        if not self.solo:
            table.add_row("@Name text", "say it to that member (also @Name /command ...)")
        for name in self.local_commands():
            table.add_row(f"/{name}", LOCAL_COMMANDS[name])
        table.add_row("Ctrl-C", "stop the running work; twice in a row: quit")
        for command in self.entry_commands():
            table.add_row(command.usage, f"{command.description} ({self.entry.name})")
        table.add_row("members", self.member_names())
        return table

    def local_commands(self) -> list[str]:
        """The session's own commands this seat can use (no `/last` without a flow)."""
        return [name for name in LOCAL_COMMANDS if not (self.solo and name in TEAM_LOCALS)]

    def entry_commands(self) -> list[CommandDescriptor]:
        """The entry agent's commands this seat can use (the session's own take a name)."""
        return [
            command
            for command in self.console.tracker.commands(self.entry.name)
            if command.name not in LOCAL_COMMANDS
            and not (self.solo and (command.owner == TEAM_CARD or command.name in TEAM_BUILTINS))
        ]

    def completions(self) -> list[str]:
        """What Tab completes: member names, and the commands of the session and the entry."""
        names = [m.name for m in self.members() if not m.is_user_proxy]
        commands = [f"/{c}" for c in self.local_commands()]
        commands += [f"/{c.name}" for c in self.entry_commands()]
        return [*names, *commands]

    def status(self) -> str:
        """The bottom line of the prompt: who is working, or what the person can do."""
        working = self.console.tracker.working()
        if working:
            return f" working: {', '.join(working)}   (Ctrl-C or /stop to stop)"
        return f" idle · talking to {self.entry.name} · /help for commands"


def interact(session: Session, reader: Reader, settle: float | None = None) -> int:
    """Read and handle lines until the person quits; 0 (a quit is a clean end).

    With `settle` (seconds), each line's work is waited for before the next line is read, as
    a script feeding lines through a pipe expects; at a terminal the person types on while
    the team works (to stop it, or to add to what it does).
    """
    note = session.console.note
    interrupts = 0
    while True:
        try:
            line = reader.read()
            if not session.handle(line):
                break
            if settle is not None:
                session.running.wait_idle(settle)
        except EOFError:
            break
        except KeyboardInterrupt:
            interrupts += 1
            if interrupts > 1:
                break
            working = session.console.tracker.working()
            if working:  # said first: the stop's effects print as soon as it is sent
                note(f"stopping {', '.join(working)}; Ctrl-C again to quit")
            else:
                note("nothing is running; Ctrl-C again (or /quit, Ctrl-D) to quit")
            session.stop_work(working)
            continue
        except TimeoutError as exc:
            note(str(exc), style="red")
        interrupts = 0
    note("shutting the team down")
    return 0


class PlainReader:
    """Lines from standard input as they come (a pipe, a file, a terminal without a prompt)."""

    def read(self) -> str:
        line = sys.stdin.readline()
        if not line:
            raise EOFError
        return line.rstrip("\n")
