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
from collections.abc import Mapping
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path

SUFFIX = ".tmpl"


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
