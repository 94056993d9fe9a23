"""`retinue web`: a team file's team, or a store's recorded teams, served as a page.

    retinue web team.toml                         # start it, serve on 127.0.0.1:8765
    retinue web team.toml --store team.sqlite     # record it there (others in it listed too)
    retinue web --store team.sqlite               # browse and replay recorded teams
    retinue web team.toml --host 0.0.0.0          # reachable from the LAN: reads need the login too

Acting on the team needs the one-time login URL printed at start (not with `--no-token`, for
a trusted machine). The team runs until Ctrl-C or SIGTERM, then is shut down. Exit status: 0
after a clean end, 1 when the store cannot be opened or the address cannot be taken, 2 for
a wrong team file, model or option (one line each, as `retinue run` prints them).
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from retinue.store import Store

    from retinue_web.view import WebView

DEFAULT_PORT = 8765
BAD_INPUT = 2


def add_web_command(add_command: Callable[..., argparse.ArgumentParser]) -> None:
    parser = add_command("web", help="a team, or the teams a store recorded, in your browser")
    parser.description = __doc__.split("\n\n")[0] if __doc__ else None
    parser.add_argument("team_file", nargs="?", metavar="TEAM.toml", help="the team file to run")
    parser.add_argument(
        "--store",
        metavar="PATH_OR_URL",
        help="record the team there, and list the teams it holds (SQLite path or "
        "postgresql:// URL); without TEAM.toml, what to browse (default: $RETINUE_STORE)",
    )
    parser.add_argument("--host", default="127.0.0.1", help="the address to listen on")
    parser.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"the port (default {DEFAULT_PORT}; 0: any)"
    )
    parser.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="also answer requests for this Host (a name of this machine); repeatable",
    )
    parser.add_argument(
        "--no-token",
        action="store_true",
        help="let any process of this machine act as the person without the login URL "
        "(a trusted machine only; loopback --host only)",
    )
    parser.add_argument(
        "--model", metavar="STRING", help="play every role on this model (as retinue run)"
    )
    parser.add_argument(
        "--shutdown-timeout",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="how long the team may take to stop at the end (default 10)",
    )
    parser.set_defaults(run=web_command)


def add_web_option(parser: argparse.ArgumentParser) -> None:
    """`--web [[HOST:]PORT]` on a command that runs a team (`retinue run`, `retinue chat`)."""
    parser.add_argument(
        "--web",
        nargs="?",
        const=str(DEFAULT_PORT),
        metavar="[HOST:]PORT",
        help=f"also show the team in the browser (retinue-web), on 127.0.0.1:{DEFAULT_PORT} "
        "or where given",
    )


def attach_web(team: Any, where: str) -> Callable[[], object]:
    """Serve `team`'s page as `--web` says; what stops it."""
    from retinue_web.view import WebView

    host, _, port = where.rpartition(":")
    try:
        number = int(port)
    except ValueError:
        raise ValueError(f"--web takes [HOST:]PORT, got {where!r}") from None
    view = WebView(team, host=host or "127.0.0.1", port=number)
    view.start()
    print(f"retinue web: open {view.login_url()}", file=sys.stderr, flush=True)
    return view.stop


def _fail(text: str, status: int = BAD_INPUT) -> int:
    print(f"retinue web: {text}", file=sys.stderr)
    return status


def web_command(args: argparse.Namespace) -> int:
    """Run `retinue web` as `args` say; the exit status."""
    import os

    from retinue.store import StoreError, open_store

    from retinue_web.security import is_loopback

    if not 0 <= args.port < 65536:
        return _fail(f"--port must be 0-65535, got {args.port}")
    if args.no_token and not is_loopback(args.host):
        return _fail(f"--no-token is for a loopback --host: on {args.host} anyone could act")
    where = args.store or (None if args.team_file else os.environ.get("RETINUE_STORE"))
    if args.team_file is None and where is None:
        return _fail("give a team file to run, or --store to browse recorded teams")
    logging.basicConfig(level=logging.WARNING, format="retinue web: %(message)s")
    os.environ.setdefault("PYDANTIC_AI_NO_BANNER", "1")
    try:
        store = open_store(where if where else ":memory:", create=args.team_file is not None)
    except StoreError as exc:
        return _fail(str(exc), 1)
    try:
        if args.team_file is None:
            return _browse(store, args)
        return _run_team(store, args)
    finally:
        store.close()


def _browse(store: Store, args: argparse.Namespace) -> int:
    from retinue_web.view import WebView

    view = WebView(
        store=store,
        host=args.host,
        port=args.port,
        allowed_hosts=tuple(args.allow_host),
        token=_token(args),
    )
    return _serve(view, "the recorded teams")


def _run_team(store: Store, args: argparse.Namespace) -> int:
    from retinue import ActorSystem, ModelConfig
    from retinue.kit import shown
    from retinue.teamfile import TeamFileError, load_team_file

    from retinue_web.view import WebView

    try:
        spec = load_team_file(args.team_file)
        model = ModelConfig.from_string(args.model) if args.model else None
    except TeamFileError as exc:
        print(exc, file=sys.stderr)
        return BAD_INPUT
    except ValueError as exc:
        return _fail(f"--model: {exc}")
    system = ActorSystem(store=store)
    try:
        running = spec.start(model=model, system=system)
    # a model that cannot be built, a card with bad settings
    except Exception as exc:  # noqa: BLE001
        system.shutdown(args.shutdown_timeout)
        return _fail(f"the team could not start: {exc}")
    try:
        view = WebView(
            running,
            host=args.host,
            port=args.port,
            allowed_hosts=tuple(args.allow_host),
            token=_token(args),
            title=spec.team.name,
        )
        return _serve(
            view,
            f"team {shown(spec.team.name)}: {running.human.name} talks to {running.entry.name}",
        )
    finally:
        print("retinue web: shutting the team down", file=sys.stderr)
        system.shutdown(args.shutdown_timeout)  # the team and everything it started


def _token(args: argparse.Namespace) -> bool | None:
    return False if args.no_token else None  # None: the view's default


def _serve(view: WebView, what: str) -> int:
    from retinue.kit import sigterm_as_interrupt

    try:
        sock = view.bind()
    except OSError as exc:
        return _fail(str(exc), 1)
    print(f"retinue web: {what}", file=sys.stderr)
    print(f"retinue web: open {view.login_url()}  (Ctrl-C to stop)", file=sys.stderr, flush=True)
    if view.gate is not None and view.gate.token_required:
        print(
            "retinue web: that URL works once; it signs one browser in",
            file=sys.stderr,
        )
    with contextlib.suppress(KeyboardInterrupt), sigterm_as_interrupt():
        view.serve_forever(sock)
    return 0
