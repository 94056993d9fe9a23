"""`retinue new team NAME [--dir PATH]`: a team to start from, runnable and tested offline.

It writes the folder PATH/NAME: `team.toml` (a lead and a researcher, on the kernel alone),
the scripted models it names (`NAME_script.py`), a test that runs the team offline
(`test_team.py`, with `pytest.ini` loading retinue's pytest plugin) and a README. Then
`cd NAME && retinue check team.toml && pytest` passes as it is. A name that cannot be a
team's, a folder that exists, or a module name already importable elsewhere (it would be
imported instead of the one beside the file) is refused in one line, exit status 2, and
nothing is written.
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import sys
from pathlib import Path
from typing import Any

from retinue.cli.template_files import add_folder_command, folder_problem

MAX_NAME_CHARS = 40
_NAME = re.compile(rf"[a-z][a-z0-9_-]{{0,{MAX_NAME_CHARS - 1}}}")
NAME_RULE = (
    f"a team name is 1 to {MAX_NAME_CHARS} lowercase letters, digits, '-' or '_', starting "
    "with a letter (demo, release-crew)"
)


def register(commands: Any) -> None:
    """Add the `new` subcommand (with its action `team`) to the `retinue` command."""
    new = (
        "new",
        "start a new team from retinue's template",
        "Start something new: `retinue new team NAME` writes a team file, its scripted models "
        "and a test that runs it offline, in the folder NAME.",
    )
    team = (
        "team",
        "write a new team in the folder NAME",
        "Write a team in the folder NAME: team.toml, the scripted models it runs on offline, a "
        "test and a README. Then: cd NAME && retinue check team.toml && pytest.",
    )
    add_folder_command(
        commands, new, team, "the team's name, e.g. demo or release-crew", run_new_team
    )


def run_new_team(args: argparse.Namespace) -> int:
    from retinue.cli.template_files import render_template, write_new_folder

    name: str = args.name
    folder: Path = args.dir / name
    module = name.replace("-", "_") + "_script"
    problem = _refusal(name, folder, module)
    if problem is not None:
        print(f"retinue new team: {problem}", file=sys.stderr)
        return 2
    written = render_template("team_template", {"name": name, "module": module}, {"SCRIPT": module})
    steps = [
        f"cd {folder}",
        "retinue check team.toml",
        'retinue run team.toml --message "what should we build?"',
        "pytest",
    ]
    return write_new_folder(
        "retinue new team", folder, written, f"the team {name} in {folder}", steps
    )


def _refusal(name: str, folder: Path, module: str) -> str | None:
    """Why the team cannot be written there, or None."""
    if _NAME.fullmatch(name) is None:
        return f"{name!r}: {NAME_RULE}"
    problem = folder_problem(folder)
    if problem is not None:
        return problem
    try:
        found = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        found = None
    if found is not None:
        return (
            f"a module {module} is importable already ({found.origin}) and would be run instead "
            "of the team's own; choose another name"
        )
    return None
