"""A folder of package data rendered into a new project's files, and written all at once.

What `retinue plugin new` and `retinue new team` share. A template is a folder beside the
modules of `retinue.cli`, one `.tmpl` file for each file it makes; its text is a
`string.Template` (`$name`, `${stem}Audit`; `$$` is a dollar sign), and in its paths each
key of `renames` becomes its value; `.tmpl` is dropped. A placeholder the renderer does not
know is an error, never left in a file.
"""

from __future__ import annotations

import argparse
import secrets
import shutil
import string
import sys
from collections.abc import Callable, Mapping, Sequence
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

SUFFIX = ".tmpl"


def add_folder_command(
    commands: Any,
    command: tuple[str, str, str],
    action: tuple[str, str, str],
    name_help: str,
    run: Callable[[argparse.Namespace], int],
) -> None:
    """`retinue COMMAND ACTION NAME [--dir PATH]`, a command writing a new folder, added to
    the `retinue` command's subcommands; `command` and `action` are (word, help,
    description) each, and `run` makes the folder."""
    word, help_text, description = command
    parser = commands.add_parser(word, help=help_text, description=description)
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    word, help_text, description = action
    writer = actions.add_parser(word, help=help_text, description=description)
    add_folder_arguments(writer, name_help)
    writer.set_defaults(run=run)


def add_folder_arguments(parser: argparse.ArgumentParser, name_help: str) -> None:
    """`NAME` and `--dir PATH`: the new folder, PATH/NAME, the files are written in."""
    parser.add_argument("name", metavar="NAME", help=name_help)
    parser.add_argument(
        "--dir",
        type=Path,
        default=Path("."),
        metavar="PATH",
        help="the folder to make NAME in (default: the current one)",
    )


def folder_problem(folder: Path) -> str | None:
    """Why a new folder cannot be made at `folder` (its parent is none, it exists), or None."""
    if not folder.parent.is_dir():
        return f"{folder.parent} is not a folder; give --dir an existing one"
    if folder.exists():
        return f"{folder} already exists; choose another name or --dir"
    return None


def render_template(
    template: str, values: Mapping[str, str], renames: Mapping[str, str]
) -> dict[str, str]:
    """Every file the template `template` makes, by its path in the new folder, sorted."""
    rendered: dict[str, str] = {}
    for path, source in _template_files(files("retinue.cli") / template, ""):
        target = path.removesuffix(SUFFIX)
        for placeholder, value in renames.items():
            target = target.replace(placeholder, value)
        try:
            rendered[target] = string.Template(source).substitute(values)
        except (KeyError, ValueError) as exc:  # a template bug: name the file
            raise RuntimeError(
                f"the template {template}/{path} has a bad placeholder: {exc}"
            ) from exc
    return dict(sorted(rendered.items()))


def write_folder(folder: Path, texts: Mapping[str, str]) -> None:
    """Write every file into a temporary folder beside `folder`, then rename it into place:
    a failure half-way leaves nothing behind."""
    staging = folder.parent / f".{folder.name}.{secrets.token_hex(4)}.partial"
    staging.mkdir()  # as any folder the user makes: the umask decides its mode
    try:
        for relative, text in texts.items():
            path = staging / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        staging.rename(folder)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def write_new_folder(
    prog: str, folder: Path, texts: Mapping[str, str], made: str, steps: Sequence[str]
) -> int:
    """Write the new folder and say what was `made` and the next `steps`: exit status 0, or 1
    (said on stderr after `prog`) when it cannot be written."""
    try:
        write_folder(folder, texts)
    except OSError as exc:
        print(f"{prog}: cannot write {folder}: {exc}", file=sys.stderr)
        return 1
    print(f"wrote {made} ({len(texts)} files); next:")
    for step in steps:
        print(f"  {step}")
    return 0


def _template_files(folder: Traversable, prefix: str) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for entry in folder.iterdir():
        path = f"{prefix}{entry.name}"
        if entry.is_dir():
            if entry.name != "__pycache__":
                found += _template_files(entry, path + "/")
        elif entry.name.endswith(SUFFIX):
            found.append((path, entry.read_text(encoding="utf-8")))
    return found
