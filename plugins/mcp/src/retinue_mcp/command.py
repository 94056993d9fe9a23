"""`retinue mcp serve TEAM.toml`: load the team file, start the team, serve it (stdio, or
streamable HTTP with `--http`) until the client goes or SIGINT or SIGTERM comes, shut the
team down."""

from __future__ import annotations

import argparse
import logging
import sys

from retinue_mcp.serve import TeamService, build_server, start


def _option_problem(args: argparse.Namespace) -> str | None:
    if args.http and not 0 < args.port < 65536:
        return f"--port must be 1-65535, got {args.port}"
    if not args.timeout > 0:
        return f"--timeout must be above 0, got {args.timeout:g}"
    return None


def serve_command(args: argparse.Namespace) -> int:
    """`retinue mcp serve`: start the team, serve it until the client goes (or SIGINT or
    SIGTERM comes), stop the team."""
    from retinue import ActorSystem
    from retinue.kit import load_served_team, new_token, shown, sigterm_as_interrupt
    from retinue.store import StoreError

    from retinue_mcp.endpoint import endpoint_url, http_server

    loaded = load_served_team(args, "retinue mcp serve", [_option_problem(args)])
    if loaded is None:
        return 1
    spec, model = loaded
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)  # stdout is the protocol's
    service = TeamService(timeout=args.timeout)
    try:
        system = ActorSystem(store=args.store) if args.store else None
    except StoreError as exc:
        print(f"retinue mcp serve: {exc}", file=sys.stderr)
        return 1
    try:
        running = start(spec, service, model=model, system=system)
    # a model that cannot be built, a card with bad settings
    except Exception as exc:  # noqa: BLE001
        print(f"retinue mcp serve: the team did not start: {exc}", file=sys.stderr)
        if system is not None:
            system.shutdown(30)
        return 1
    try:
        with sigterm_as_interrupt():
            # Over HTTP the server says where it listens once it does (uvicorn's INFO line).
            server = build_server(
                service, name=spec.team.name, log_level="INFO" if args.http else "WARNING"
            )
            if args.http:
                token = None if args.no_token else new_token()
                print(
                    f"retinue mcp serve: team {shown(spec.team.name)}, "
                    f"MCP endpoint {endpoint_url(args.port, token)}",
                    file=sys.stderr,
                    flush=True,
                )
                http_server(server, port=args.port, token=token).run()
            else:
                server.run("stdio")
    except KeyboardInterrupt:
        pass
    finally:
        print("retinue mcp serve: shutting the team down", file=sys.stderr)
        # A system made for --store goes down whole: its stop is recorded as a shutdown
        # (the members come back on resume), not as each member leaving.
        (running if system is None else system).shutdown(30)
    return 0
