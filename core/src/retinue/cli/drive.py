"""Driving a started team from the command: interactively, or one `--message`.

Shared by `retinue run` and `retinue chat`: which watchers are subscribed (the console, the
JSON transcript, the person's inbox), where the log goes, which reader the session gets.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Callable

from rich.text import Text

from retinue.cli import launch, plugin_commands
from retinue.cli.logs import LineHandler, setup_logging
from retinue.cli.oneshot import PersonInbox, run_once
from retinue.cli.options import level_of
from retinue.cli.recording import session_store
from retinue.cli.serving import sigterm_ends_session
from retinue.cli.session import PlainReader, Session, interact
from retinue.console import Console, JsonTranscript
from retinue.llm.config import ModelConfig
from retinue.team.subscriber import EventSubscriber
from retinue.teamfile import TeamFile


def drive(spec: TeamFile, model: ModelConfig | None, args: argparse.Namespace, command: str) -> int:
    """Start `spec` and run it as `args` ask; the exit status."""
    # pydantic-ai's banner about observability would land in the middle of the team's flow
    os.environ.setdefault("PYDANTIC_AI_NO_BANNER", "1")
    handler = setup_logging(level_of(args))
    try:
        return _drive(spec, model, args, command, handler)
    finally:
        logging.getLogger().removeHandler(handler)


def _drive(
    spec: TeamFile,
    model: ModelConfig | None,
    args: argparse.Namespace,
    command: str,
    handler: LineHandler,
) -> int:
    message: str | None = getattr(args, "message", None)
    verbose = args.verbose > 0
    on_terminal = message is None and sys.stdin.isatty() and sys.stdout.isatty()
    console: Console | None = None
    transcript: JsonTranscript | None = None
    watchers: list[EventSubscriber] = []
    if getattr(args, "json", False):
        transcript = JsonTranscript(sys.stdout, verbose=verbose)
        watchers.append(transcript)
    elif message is None or not getattr(args, "quiet", False):
        # with --message the flow goes to stderr, so stdout holds the answers alone
        console = Console(
            file=sys.stderr if message is not None else None,
            verbose=verbose,
            status=False if on_terminal else None,  # the prompt's bottom line says it
            answers=message is None,
            echo_person=not on_terminal,  # the prompt shows what the person typed
        )
        watchers.append(console)
        handler.write = _through(console)
    handler.shows_record = bool(watchers)
    try:
        running = launch.start(spec, model, watchers, session_store(args))
    except launch.LaunchError as error:
        return launch.report(error, command)
    if console is not None and console.rich.is_terminal and args.stream:
        running.team.listen_to_outputs(console)  # answers show as the models write them
    closers = plugin_commands.session_started(running, args)  # `retinue run --web`, ...
    with sigterm_ends_session():  # a `kill` ends the session as /quit does
        try:
            if message is not None:
                inbox = PersonInbox(running.human)
                running.team.subscribe(inbox, replay=True)
                text = sys.stdin.read() if message == "-" else message
                return run_once(running, inbox, text, timeout=args.timeout, transcript=transcript)
            assert console is not None
            session = Session(running, console, solo=len(spec.roles) == 1)
            console.note(
                f"team {spec.team.name}: {running.human.name} talking to {running.entry.name}; "
                "/help for commands, /quit to leave"
            )
            if on_terminal:
                from retinue.cli.terminal import interact_in_terminal

                return interact_in_terminal(session, running.human.name)
            return interact(session, PlainReader(), settle=args.timeout)
        finally:
            plugin_commands.session_ended(closers)
            running.shutdown(timeout=args.shutdown_timeout)
            handler.write = None
            if console is not None:
                console.close()


def _through(console: Console) -> Callable[[str, int], None]:
    def write(line: str, level: int) -> None:
        console.print(Text(line, style="red" if level >= logging.WARNING else "dim"))

    return write
