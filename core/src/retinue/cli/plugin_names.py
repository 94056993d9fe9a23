"""The names a new plugin is made of, from the one name its author gives.

`retinue plugin new web-search` makes the distribution `retinue-web-search`, the package
`retinue_web_search`, the entry point, card and command `web_search` and the class
`WebSearchTool`. Every one of them must be valid in its own grammar (a distribution name,
a Python module, an identifier), so the name is held to the narrowest: the rule below.
"""

from __future__ import annotations

import keyword
import re
from dataclasses import dataclass

MAX_NAME_CHARS = 40
NAME_RULE = (
    f"a plugin name is 1 to {MAX_NAME_CHARS} lowercase letters and digits, starting with a "
    "letter, with single '-' or '_' between words (notes, web-search)"
)
_NAME = re.compile(r"[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*")
_RELEASE = re.compile(r"(\d+)\.(\d+)")


class PluginNameError(ValueError):
    """A name no plugin can have, or one already taken; the message is one line."""


@dataclass(frozen=True)
class PluginNames:
    """Every name of one new plugin."""

    name: str
    """As given: the folder's name (`web-search`)."""
    slug: str
    """The entry point, the card's `name` and its command (`web_search`)."""
    distribution: str
    """`retinue-web-search`."""
    package: str
    """`retinue_web_search`."""
    stem: str
    """`WebSearch`: the card class is `WebSearchTool`, the capability `WebSearchAudit`."""
    title: str
    """`Web search`: the card's section heading in context updates."""

    @classmethod
    def of(cls, name: str) -> PluginNames:
        """The names for `name`; raises `PluginNameError` saying the rule it breaks."""
        if not _NAME.fullmatch(name) or len(name) > MAX_NAME_CHARS:
            raise PluginNameError(f"{name!r} is not a plugin name: {NAME_RULE}")
        words = re.split(r"[-_]", name)
        if words[0] == "retinue":
            rest = "-".join(words[1:]) or "notes"
            raise PluginNameError(
                f"{name!r}: give the plugin's own name, without 'retinue' "
                f"(retinue plugin new {rest} makes retinue-{rest})"
            )
        slug = "_".join(words)
        if keyword.iskeyword(slug):
            raise PluginNameError(
                f"{name!r} is a Python keyword, and the card's command is a method of that "
                "name; choose another name"
            )
        return cls(
            name=name,
            slug=slug,
            distribution="retinue-" + "-".join(words),
            package="retinue_" + slug,
            stem="".join(word.capitalize() for word in words),
            title=" ".join(words).capitalize(),
        )

    @property
    def card_class(self) -> str:
        return f"{self.stem}Tool"


def kernel_requirement(version: str) -> str:
    """The kernel range a plugin written against `version` depends on: this minor series
    below 1.0 (`retinue>=0.1.0,<0.2`), this major series from 1.0 (`retinue>=1.2.0,<2`)."""
    found = _RELEASE.match(version)
    if found is None:
        raise ValueError(f"not a release version: {version!r}")
    major, minor = int(found[1]), int(found[2])
    upper = f"0.{minor + 1}" if major == 0 else str(major + 1)
    return f"retinue>={version},<{upper}"
