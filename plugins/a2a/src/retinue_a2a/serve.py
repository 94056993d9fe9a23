"""`retinue a2a serve TEAM.toml`: a team file's team as one A2A agent on 127.0.0.1.

Each A2A context is a team of its own (`Conversations`), in one actor system that records
them all with `--store`; the protocol is the a2a-sdk's (`app`). In code:

    conversations = Conversations(load_team_file("team.toml"), system=ActorSystem())
    http_server(conversations, port=8767, token=new_token()).run()
"""

from __future__ import annotations

import argparse
import logging
import sys


def _option_problem(args: argparse.Namespace) -> str | None:
    if not 0 < args.port < 65536:
        return f"--port must be 1-65535, got {args.port}"
    return None


def serve_command(args: argparse.Namespace) -> int:
    """Serve the team until SIGINT or SIGTERM, then shut every context's team down."""
    from retinue import ActorSystem
    from retinue.kit import load_served_team, shown, sigterm_as_interrupt
    from retinue.store import StoreError, open_store

    from retinue_a2a.app import agent_url, http_server
    from retinue_a2a.conversations import Conversations
    from retinue_a2a.gate import new_token

    loaded = load_served_team(args, "retinue a2a serve", [_option_problem(args)])
    if loaded is None:
        return 1
    spec, model = loaded
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    try:
        store = open_store(args.store) if args.store else None
        system = ActorSystem(store=store)
    except StoreError as exc:
        print(f"retinue a2a serve: {exc}", file=sys.stderr)
        return 1
    conversations = Conversations(spec, system=system, model=model, store=store)
    token = None if args.no_token else new_token()
    try:
        with sigterm_as_interrupt():
            print(
                f"retinue a2a serve: team {shown(spec.team.name)}, A2A agent {agent_url(args.port)}"
                + (f" (bearer token {token})" if token else " (no token)"),
                file=sys.stderr,
                flush=True,
            )
            http_server(conversations, port=args.port, token=token).run()
    except KeyboardInterrupt:
        pass
    finally:
        print("retinue a2a serve: shutting the teams down", file=sys.stderr)
        if system.shutdown(30) and store is not None:
            store.close()  # one still running may yet record: left open then
    return 0
