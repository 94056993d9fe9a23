"""`retinue resume TEAM_ID`: a recorded team, running again (and `retinue chat --continue`).

The team comes back from its record (see docs/resume.md): every member under its own name,
the work it was owed delivered again and done first. Then the person talks to it as in
`retinue run`: each `--message` in turn (the team works until it is quiet after each), or
else the interactive session (a terminal), or lines read from a pipe. The flow is printed as
it goes, and at the end what is still owed, if anything.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TextIO

from retinue.cli.options import add_drive_arguments, add_logging_arguments
from retinue.cli.recording import add_store_argument

if TYPE_CHECKING:
    from retinue.actors.address import ActorAddress
    from retinue.console import Console
    from retinue.resume import ResumedTeam
    from retinue.store import Store


def register(commands: Any) -> None:
    """Add `resume` to the `retinue` command's subcommands."""
    parser = commands.add_parser(
        "resume",
        help="continue a recorded team from its store",
        description="Continue a team from its record: members, state and owed work come back; "
        "then talk to it as with `retinue run`.",
    )
    parser.add_argument(
        "team_id", metavar="TEAM_ID", help="the team's id, or a unique prefix (`retinue teams`)"
    )
    add_store_argument(parser, "resume from, and record the session on into")
    parser.add_argument(
        "--no-record", action="store_true", help="record nothing more of the team in its store"
    )
    parser.add_argument(
        "-m",
        "--message",
        action="append",
        default=[],
        metavar="TEXT",
        help="say TEXT as the person once the owed work is done (repeatable)",
    )
    parser.add_argument(
        "--fork",
        action="store_true",
        help="start a new team from the record instead (the team's own record is unchanged)",
    )
    parser.add_argument(
        "--at",
        type=int,
        metavar="POSITION",
        help="with --fork: from the record as it was at POSITION (`retinue log --all`)",
    )
    add_drive_arguments(parser)
    add_logging_arguments(parser)
    parser.set_defaults(run=run_resume)


def run_resume(args: argparse.Namespace, command: str = "resume") -> int:
    """Resume, converse, report; 1 with one line on stderr when the team cannot resume.

    `args.team_id` None resumes the team the store heard from last (`retinue chat -c`).
    """
    from retinue.actors.errors import IdleTimeoutError
    from retinue.actors.system import ActorSystem
    from retinue.cli.logs import setup_logging
    from retinue.cli.options import level_of
    from retinue.cli.serving import sigterm_ends_session
    from retinue.cli.store_commands import find_team, latest_team
    from retinue.console import Console
    from retinue.resume import ResumeError, fork_team, resume_team
    from retinue.store import LeaseHeldError, StoreError, open_store, store_location

    setup_logging(level_of(args))
    forking, at = getattr(args, "fork", False), getattr(args, "at", None)
    misuse = _fork_misuse(forking, at, args.no_record)
    if misuse is not None:
        print(f"retinue {command}: {misuse}", file=sys.stderr)
        return 2
    try:
        store = open_store(store_location(args.store), create=False)
    except StoreError as exc:
        print(f"retinue {command}: {exc}", file=sys.stderr)
        return 1
    try:
        system = ActorSystem() if args.no_record else None  # else one recording on into store
        try:
            wanted = args.team_id
            team_id = latest_team(store) if wanted is None else find_team(store, wanted)
            if forking:
                team = fork_team(store, team_id, at=at)
                team_id = team.team_id
            else:
                team = resume_team(store, team_id, system=system)
        except (ResumeError, StoreError) as exc:
            if system is not None:
                system.shutdown()
            print(f"retinue {command}: {exc}", file=sys.stderr)
            return 2 if forking and not isinstance(exc, LeaseHeldError) else 1
        on_terminal = not args.message and sys.stdin.isatty() and sys.stdout.isatty()
        console = Console(
            verbose=args.verbose > 0,
            status=False if on_terminal else None,
            echo_person=not on_terminal,  # the prompt shows what the person typed
        )
        try:
            with sigterm_ends_session():  # a `kill` ends the session as /quit does
                code = _converse(team, console, args, on_terminal)
        except IdleTimeoutError as exc:
            print(f"retinue {command}: the team is still working: {exc}", file=sys.stderr)
            code = 1
        finally:
            team.shutdown(args.shutdown_timeout)
            console.close()
        if not args.no_record:  # unrecorded, this session's work is not in the record
            _report_owed(store, team_id, sys.stdout)
        return code
    finally:
        store.close()


def _fork_misuse(forking: bool, at: int | None, no_record: bool) -> str | None:
    """What is wrong with how `--at` and `--fork` were given, if anything."""
    if at is not None and not forking:
        return "--at needs --fork (a team's record is never cut)"
    if forking and no_record:
        return "a fork is a new team in the store: not with --no-record"
    return None


def _converse(
    team: ResumedTeam, console: Console, args: argparse.Namespace, on_terminal: bool
) -> int:
    from retinue.cli.session import PlainReader, Session, interact

    members = ", ".join(sorted(team.roster)) or "nobody"
    origin = team.forked_from
    if origin is not None:
        console.note(
            f"forked team {team.team_id} from {origin.source_team_id} at position "
            f"{origin.position}: {members}",
            style="",
        )
    else:
        console.note(f"resumed team {team.team_id}: {members}", style="")
    for message in team.redelivered:
        console.note(f"  delivered again: {_line(message)}", style="")
    team.team.subscribe(console)
    team.wait_idle(args.timeout)  # the owed work first
    if team.human is None or team.entry is None:
        console.note("the team has no person and agent to talk between; done")
        return 0
    seat = _Seat(team, team.entry)
    if args.message:
        for text in args.message:
            seat.send(text)
            seat.wait_idle(args.timeout)
        return 0
    session = Session(seat, console)
    if on_terminal:
        from retinue.cli.terminal import interact_in_terminal

        console.note(f"{team.human.name} talking to {team.entry.name}; /help, /quit to leave")
        return interact_in_terminal(session, team.human.name)
    return interact(session, PlainReader(), settle=args.timeout)


@dataclass(frozen=True)
class _Seat:
    """The person's side of the resumed team, as the session drives it."""

    team: ResumedTeam
    entry: ActorAddress

    def send(self, text: str, to: ActorAddress | None = None, intent: str = "request") -> None:
        self.team.send(text, to=to, intent=intent)

    def wait_idle(self, timeout: float = 30.0) -> None:
        self.team.wait_idle(timeout)


def _report_owed(store: Store, team_id: str, out: TextIO) -> None:
    from retinue.resume import read_team_record

    owed = read_team_record(store, team_id).owed
    if not owed:
        print("nothing is left owed: every delivered message was handled", file=out)
        return
    print(f"{len(owed)} message(s) still owed (delivered again on the next resume):", file=out)
    for message in owed:
        print(f"  {_line(message)}", file=out)


def _line(message: Any) -> str:
    from retinue.console.text import clean

    sender = message.sender.name if message.sender is not None else "outside"
    recipient = message.recipient.name if message.recipient is not None else "?"
    content = str(getattr(message, "content", type(message).__name__))
    first = content.splitlines()[0] if content else ""
    intent = getattr(message, "type", "")
    return clean(f"{sender} -> {recipient} [{intent}] {first}")
