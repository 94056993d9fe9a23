"""`retinue resume TEAM_ID --store PATH`: a recorded team, running again.

The team comes back from its record (see docs/resume.md): every member under its own name,
the work it was owed delivered again. Then, in order: each `--message` is said as the
person to the entry member (the one the person last wrote to) and the team works until it
is quiet; with no `--message` and a terminal on stdin, the person types lines (each a
message, `/quit` or end of input to stop); otherwise the team finishes the work it was owed.
The conversation is printed as it goes, and at the end what is still owed, if anything.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from retinue.resume import ResumedTeam

QUIT = "/quit"


def register(commands: Any) -> None:
    """Add `resume` to the `retinue` command's subcommands."""
    parser = commands.add_parser(
        "resume",
        help="continue a recorded team from its store",
        description="Continue a team from its record: members, state and owed work come back.",
    )
    parser.add_argument("team_id", metavar="TEAM_ID", help="the team's id (see `retinue teams`)")
    parser.add_argument(
        "--store", required=True, metavar="PATH_OR_URL", help="the SQLite file or postgresql:// URL"
    )
    parser.add_argument(
        "--message",
        "-m",
        action="append",
        default=[],
        metavar="TEXT",
        help="say TEXT as the person once the owed work is done (repeatable)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=300.0,
        metavar="SECONDS",
        help="how long to wait for the team to be quiet after each message (default 300)",
    )
    parser.set_defaults(run=run_resume)


def run_resume(args: argparse.Namespace) -> int:
    """Resume, converse, report; 1 with one line on stderr when the team cannot resume."""
    from retinue.actors.errors import IdleTimeoutError
    from retinue.resume import ResumeError, resume_team
    from retinue.store import StoreError, open_store

    try:
        store = open_store(args.store, create=False)
    except StoreError as exc:
        print(f"retinue: {exc}", file=sys.stderr)
        return 1
    try:
        try:
            team = resume_team(store, args.team_id)
        except (ResumeError, StoreError) as exc:
            print(f"retinue: {exc}", file=sys.stderr)
            return 1
        try:
            _converse(team, args, sys.stdin, sys.stdout)
        except IdleTimeoutError as exc:
            print(f"retinue: the team is still working: {exc}", file=sys.stderr)
            return 1
        finally:
            team.shutdown()
        _report_owed(store, args.team_id, sys.stdout)
    finally:
        store.close()
    return 0


def _converse(team: ResumedTeam, args: argparse.Namespace, stdin: TextIO, out: TextIO) -> None:
    from retinue.cli.demo import Printer

    members = ", ".join(sorted(team.members)) or "nobody"
    print(f"resumed team {team.team_id}: {members}", file=out)
    for message in team.redelivered:
        print(f"  delivered again: {_line(message)}", file=out)
    team.team.subscribe(Printer(out))
    team.system.wait_idle(args.timeout)
    if args.message:
        for text in args.message:
            team.send(text)
            team.system.wait_idle(args.timeout)
        return
    if not stdin.isatty():
        return
    entry = team.entry.name if team.entry is not None else "nobody"
    print(f"type a message for {entry} ({QUIT} or end of input to stop)", file=out)
    for line in stdin:
        text = line.strip()
        if text == QUIT:
            break
        if text:
            team.send(text)
            team.system.wait_idle(args.timeout)


def _report_owed(store: Any, team_id: str, out: TextIO) -> None:
    from retinue.resume import read_team_record

    owed = read_team_record(store, team_id).owed
    if not owed:
        print("nothing is left owed: every delivered message was handled", file=out)
        return
    print(f"{len(owed)} message(s) still owed (delivered again on the next resume):", file=out)
    for message in owed:
        print(f"  {_line(message)}", file=out)


def _line(message: Any) -> str:
    sender = message.sender.name if message.sender is not None else "outside"
    recipient = message.recipient.name if message.recipient is not None else "?"
    content = getattr(message, "content", type(message).__name__)
    first = content.splitlines()[0] if content else ""
    intent = getattr(message, "type", "")
    return f"{sender} -> {recipient} [{intent}] {first}"
