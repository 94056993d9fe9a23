"""Where the command's records are: `--store` for every command that reads or writes one,
`--no-record` for a session (`retinue run`, `chat`, `resume`).

Every session is recorded unless told not to: into `--store`, else `$RETINUE_STORE`, else
the per-user store (`retinue.store.default_store_path`), which `retinue teams` and
`retinue log` read by default too.
"""

from __future__ import annotations

import argparse

from retinue.store.opening import STORE_ENV, default_store_path, store_location


def add_store_argument(parser: argparse.ArgumentParser, doing: str = "read") -> None:
    """`--store`, as every command that reads or writes a record takes it."""
    parser.add_argument(
        "--store",
        metavar="PATH_OR_URL",
        help=f"the store to {doing}: a SQLite file or a postgresql:// URL (default: "
        f"${STORE_ENV}, else your user store; `retinue teams` lists what it holds)",
    )


def add_record_arguments(parser: argparse.ArgumentParser) -> None:
    """`--store` and `--no-record`: where a session is recorded, or that it is not."""
    add_store_argument(parser, "record the session into")
    parser.add_argument("--no-record", action="store_true", help="record nothing of this session")


def session_store(args: argparse.Namespace) -> str | None:
    """Where this session records (None: nowhere); the per-user store's folder is made."""
    if args.no_record:
        return None
    where = store_location(args.store)
    default = default_store_path()
    if where == str(default):
        try:
            default.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            from retinue.cli.launch import LaunchError

            raise LaunchError([f"cannot make the folder of {default}: {exc.strerror}"]) from None
    return where
