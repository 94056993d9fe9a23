"""`retinue run TEAM.toml`: a team file's team, interactive, or for one `--message`."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from retinue.cli.options import add_session_arguments
from retinue.cli.replaying import add_replay_arguments

DESCRIPTION = """\
Start the team a team file describes and talk to it as its person.

In a terminal: type to the entry agent; @Name text (or @Name /command ...) addresses a
member; other /commands go to the entry agent. /usage prints tokens, requests and cost per
agent, /last the last message between agents whole, /stop stops the running work, /help
lists the commands, /quit or Ctrl-D shuts the team down. Ctrl-C stops the running work;
twice in a row, it quits. Answers stream as the model writes them (--no-stream: whole).

With --message: send one request, wait until the team is idle, print the answers to the
person on stdout (the flow goes to stderr) and exit: 0 when an answer came, 1 on a failure,
no answer, a timeout or a loop stopped, 2 when the file, the model or a key is wrong, 130
on Ctrl-C.

Every session is recorded (--store, else $RETINUE_STORE, else your user store; --no-record:
not at all): `retinue teams` lists them, `retinue log TEAM_ID --turns` shows one with what
each model saw and said, `retinue chat -c` goes on with the last one.
"""


def register(commands: Any) -> None:
    """Add `run` to the command's subcommands."""
    parser: argparse.ArgumentParser = commands.add_parser(
        "run",
        help="run a team file: talk to its team, or send it one --message",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("team_file", metavar="TEAM.toml", help="the team file")
    parser.add_argument(
        "-m",
        "--message",
        metavar="TEXT",
        help="send TEXT to the entry agent, print the answers and exit ('-' reads stdin)",
    )
    parser.add_argument(
        "--model",
        metavar="STRING",
        help="play every role on this model instead: openai:gpt-4.1, "
        "anthropic:claude-sonnet-4-5, ollama:llama3.2, openai-chat:NAME@URL, "
        "function:package.module:fn, test",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="with --message: print the transcript as JSON lines on stdout, "
        "ending with a 'result' line",
    )
    parser.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="with --message: print only the answers, not the flow",
    )
    parser.add_argument(
        "--cassette",
        metavar="FILE",
        help="play the team against a cassette (`retinue export --cassette`), offline: the "
        "person's messages and every model answer from it; exit 1 on a difference",
    )
    add_replay_arguments(parser)
    add_session_arguments(parser)
    parser.set_defaults(run=run_command)


def run_command(args: argparse.Namespace) -> int:
    from retinue.cli import launch
    from retinue.cli.drive import drive
    from retinue.teamfile import TeamFileError, load_team_file

    if args.cassette is not None:
        from retinue.cli.replaying import run_cassette

        if args.message is not None:
            print(
                "retinue run: --cassette plays the person's messages it holds: give no --message",
                file=sys.stderr,
            )
            return 2

        return run_cassette(args)
    if args.json and args.message is None:
        print("retinue run: --json needs --message", file=sys.stderr)
        return launch.BAD_INPUT
    try:
        model = launch.parse_model(args.model)
        spec = load_team_file(args.team_file)
    except launch.LaunchError as error:
        return launch.report(error, "run")
    except TeamFileError as error:  # its lines name the file, as `retinue check` prints them
        print(error, file=sys.stderr)
        return launch.BAD_INPUT
    return drive(spec, model, args, "run")
