"""`Skill` and the `SKILL.md` format: a small front matter (name, description), then the body.

The front matter is parsed here rather than with a YAML library. Only two keys matter
(`name` and `description`, plain or quoted strings, a description possibly folded over
indented lines), and a full YAML parser would add a dependency and its surprises for no
gain: `no` read as a boolean, `1.0` as a number, a stray colon as a mapping. Other keys
(`license`, `allowed-tools`, nested `metadata`) are read past and ignored, so files written
for desktop assistants load unchanged. Every refusal is one line naming the file.

The body is kept exactly as written: it is never formatted, templated or re-expanded, so
`{braces}` and `{{ jinja }}` in it reach the model as they are.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, field_validator

SKILL_FILE = "SKILL.md"
"""The file a skill folder holds, as desktop assistants name it."""
MAX_NAME = 64
MAX_DESCRIPTION = 1024
MAX_BODY = 200_000
"""Characters: a body is read whole into a tool answer, so it must stay a document."""

_NAME = re.compile(r"^[a-z0-9](?:[a-z0-9_-]{0,62}[a-z0-9])?$")
_KEY = re.compile(r"^(?P<key>[A-Za-z_][\w-]*)\s*:(?:\s+(?P<value>.*))?$")
_BLOCK_INDICATORS = (">", "|", ">-", "|-", ">+", "|+")
_READ = ("name", "description")


class SkillError(ValueError):
    """A skill that cannot be used; the message is one line naming where it came from."""


class Skill(BaseModel):
    """One skill: a short name, one line saying when to use it, and the instructions."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(max_length=MAX_NAME)
    """Lowercase letters, digits, `-` and `_` (`pdf-forms`): how the model and people ask for it."""
    description: str = Field(min_length=1, max_length=MAX_DESCRIPTION)
    """One line for the menu: what the skill does and when to use it."""
    body: str = Field(max_length=MAX_BODY)
    """The instructions, shown on demand exactly as written."""

    @field_validator("name")
    @classmethod
    def _check_name(cls, value: str) -> str:
        if not _NAME.fullmatch(value):
            raise ValueError(
                f"skill name {value[:MAX_NAME]!r} must be lowercase letters, digits, '-' or '_' "
                "(starting and ending with a letter or digit)"
            )
        return value

    @field_validator("description")
    @classmethod
    def _one_line(cls, value: str) -> str:
        line = " ".join(value.split())
        if not line:
            raise ValueError("a skill needs a description")
        return line


def parse_skill(text: str, source: str) -> Skill:
    """The skill a `SKILL.md` text holds; `SkillError` naming `source` when it is malformed."""
    lines = text.lstrip("\ufeff").splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        raise SkillError(f"{source}: a skill file must start with a '---' front matter line")
    end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
    if end is None:
        raise SkillError(f"{source}: the front matter has no closing '---' line")
    fields = _front_matter(lines[1:end], source)
    missing = [key for key in ("name", "description") if not fields.get(key)]
    if missing:
        raise SkillError(f"{source}: the front matter has no {' and no '.join(missing)}")
    body = "".join(lines[end + 1 :]).strip("\n")
    try:
        return Skill(name=fields["name"], description=fields["description"], body=body)
    except ValueError as exc:
        problem = _first_problem(exc)
        raise SkillError(f"{source}: {problem}") from None


def load_skill_file(path: Path) -> Skill:
    """The skill in one `SKILL.md` file."""
    try:
        size = path.stat().st_size
        if size > MAX_BODY * 4:
            raise SkillError(f"{path}: {size} bytes is too large for a skill file")
        text = path.read_text(encoding="utf-8")
    except SkillError:
        raise
    except UnicodeDecodeError:
        raise SkillError(f"{path}: not UTF-8 text") from None
    except OSError as exc:
        raise SkillError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    return parse_skill(text, str(path))


def load_skill_folder(folder: Path) -> list[Skill]:
    """The skills of a folder: each subfolder with a `SKILL.md` (or the folder itself), by name.

    Subfolders without the file are passed over; a folder with no skill at all is an error.
    """
    if not folder.is_dir():
        raise SkillError(f"{folder}: not a folder of skills")
    files = sorted(folder.glob(f"*/{SKILL_FILE}"))
    if (folder / SKILL_FILE).is_file():
        files.insert(0, folder / SKILL_FILE)
    if not files:
        raise SkillError(f"{folder}: no {SKILL_FILE} in it or in any folder directly inside it")
    return [load_skill_file(path) for path in files]


def check_unique(skills: Iterable[Skill]) -> None:
    """Refuse two skills of one name: asking for it would be ambiguous."""
    seen: set[str] = set()
    for skill in skills:
        if skill.name in seen:
            raise SkillError(f"two skills are named {skill.name!r}")
        seen.add(skill.name)


def _front_matter(lines: list[str], source: str) -> dict[str, str]:
    """Top-level `key: value` pairs; indented lines continue the key before them."""
    fields: dict[str, str] = {}
    key: str | None = None
    parts: list[str] = []

    def close() -> None:
        if key is not None:  # only the keys read are unquoted: the others are not checked
            text = " ".join(parts)
            fields[key] = _unquote(text, key, source) if key in _READ else text

    for number, raw in enumerate(lines, start=2):
        line = raw.rstrip("\r\n")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line[0] in " \t":
            if key is not None:
                parts.append(line.strip())
            continue
        found = _KEY.match(line)
        if found is None:
            raise SkillError(f"{source}: line {number} of the front matter is not 'key: value'")
        close()
        key = found["key"].lower()
        value = (found["value"] or "").strip()
        parts = [] if value in _BLOCK_INDICATORS or not value else [value]
        if key in fields:
            raise SkillError(f"{source}: the front matter gives {key!r} twice")
    close()
    return fields


def _unquote(value: str, key: str, source: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        inner = value[1:-1]
        return inner.replace("''", "'") if value[0] == "'" else inner.replace('\\"', '"')
    if value[:1] in "\"'":
        raise SkillError(f"{source}: the {key} in the front matter has an unclosed quote")
    return value


def _first_problem(exc: ValueError) -> str:
    errors = getattr(exc, "errors", None)
    if callable(errors):
        first = errors()[0]
        where = ".".join(str(part) for part in first.get("loc", ()))
        message = str(first.get("msg", exc)).removeprefix("Value error, ")
        return f"{where}: {message}" if where else message
    return str(exc)
