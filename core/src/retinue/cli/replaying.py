"""`retinue replay TEAM_ID`, `retinue export TEAM_ID --cassette FILE`, and what `retinue run
--cassette FILE` does: a recorded session played again offline, and checked."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from retinue.cli.recording import add_store_argument

if TYPE_CHECKING:
    from retinue.store import Store

#: The exit status of a replay that found a difference.
DIFFERED = 1

REPLAY = """\
Start a recorded team again, offline: the same members, every model answer served from the
record by agent and in order, the person's messages sent again as recorded, and the tools'
results served from the record (--tools live: run them). A request that is not the recorded
one stops the replay with a diff naming the agent and its turn (--lenient: goes on with the
recorded answer and lists every difference). Exit status 0 when every request was the
recorded one and the person got the same answers, 1 otherwise, 2 for bad input.
"""


def add_replay_arguments(parser: argparse.ArgumentParser) -> None:
    """`--lenient` and `--tools`, as `replay` and `run --cassette` take them."""
    parser.add_argument(
        "--lenient",
        action="store_true",
        help="go on past a differing request with the recorded answer; list them all at the end",
    )
    parser.add_argument(
        "--tools",
        choices=("recorded", "live"),
        default="recorded",
        help="serve the tools' results from the record (default: nothing outside is touched) "
        "or run them",
    )


def register(commands: Any) -> None:
    """Add `replay` and `export` to the command's subcommands."""
    replay = commands.add_parser(
        "replay",
        help="run a recorded team again offline, answered by its record, and compare",
        description=REPLAY,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    replay.add_argument("team_id", metavar="TEAM_ID", help="the team's id, or a unique prefix")
    add_store_argument(replay)
    add_replay_arguments(replay)
    replay.add_argument(
        "--record",
        action="store_true",
        help="record the replay into the store, as a team of its own (default: nowhere)",
    )
    replay.set_defaults(run=_replay)

    export = commands.add_parser(
        "export", help="write a recorded team's model exchanges to a cassette file"
    )
    export.add_argument("team_id", metavar="TEAM_ID", help="the team's id, or a unique prefix")
    add_store_argument(export)
    export.add_argument(
        "--cassette", metavar="FILE", required=True, help="the JSON-lines file to write"
    )
    export.set_defaults(run=_export)


def _replay(args: argparse.Namespace) -> int:
    from retinue.replay import replay_team

    def replay(store: Store, team_id: str) -> int:
        with _quiet():
            report = replay_team(
                store,
                team_id,
                lenient=args.lenient,
                tools=args.tools,
                record_to=store if args.record else None,
            )
        print(report.render())
        if report.team_id is not None:
            print(f"the replay is recorded as team {report.team_id}")
        return 0 if report.ok else DIFFERED

    return _on_team(args, "replay", replay)


def _export(args: argparse.Namespace) -> int:
    from retinue.testing.replays import export_cassette

    def export(store: Store, team_id: str) -> int:
        try:
            exchanges = export_cassette(store, team_id, args.cassette)
        except OSError as exc:
            return _bad("export", f"cannot write {args.cassette}: {exc.strerror}")
        print(f"{exchanges} exchanges of team {team_id} written to {args.cassette}")
        return 0

    return _on_team(args, "export", export)


def _on_team(args: argparse.Namespace, command: str, act: Callable[[Store, str], int]) -> int:
    """`act` on the team `args.team_id` names in `--store`; a store or team that is not
    there, or a record that cannot be read, is one line and exit status 2."""
    from retinue.cli.store_commands import find_team
    from retinue.replay import ReplayError
    from retinue.store import StoreError, open_store, store_location

    try:
        store = open_store(store_location(args.store), create=False)
    except StoreError as exc:
        return _bad(command, exc)
    try:
        return act(store, find_team(store, args.team_id))
    except (StoreError, ReplayError) as exc:
        return _bad(command, exc)
    finally:
        store.close()


def run_cassette(args: argparse.Namespace) -> int:
    """`retinue run TEAM.toml --cassette FILE`: the team file played against the cassette."""
    from retinue.replay import ReplayError
    from retinue.teamfile import TeamFileError
    from retinue.testing.replays import play_cassette

    try:
        with _quiet():
            report = play_cassette(
                args.team_file, args.cassette, lenient=args.lenient, tools=args.tools
            )
    except TeamFileError as exc:  # its lines name the file
        print(exc, file=sys.stderr)
        return 2
    except ReplayError as exc:
        return _bad("run", exc)
    print(report.render())
    return 0 if report.ok else DIFFERED


@contextmanager
def _quiet() -> Iterator[None]:
    """Warnings and errors on stderr, but not the runs a strict replay stops on purpose:
    those are in its report."""
    os.environ.setdefault("PYDANTIC_AI_NO_BANNER", "1")
    handler = logging.StreamHandler(sys.stderr)
    handler.setLevel(logging.WARNING)
    handler.addFilter(lambda record: "ReplayStoppedError" not in record.getMessage())
    logging.getLogger().addHandler(handler)
    try:
        yield
    finally:
        logging.getLogger().removeHandler(handler)


def _bad(command: str, problem: object) -> int:
    print(f"retinue {command}: {problem}", file=sys.stderr)
    return 2
