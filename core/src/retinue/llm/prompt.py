"""What a runner is told: its backstory as a template, its system block, what a run is asked.

`PromptTemplate` is an agent's backstory with named parameters. Only `{identifier}` is a
placeholder, so prompts may carry JSON or code with braces as they are; `{{name}}` writes a
literal `{name}`.

Nothing here loads pydantic-ai (`UserPrompt` names its parts for type checkers only), so the
configuration names of `retinue.llm` stay cheap to import.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TypeAlias

from pydantic import Field

from retinue.llm._data import PlainData
from retinue.llm.errors import ConfigError

if TYPE_CHECKING:
    from pydantic_ai.messages import UserContent

_PLACEHOLDER = re.compile(r"\{\{([A-Za-z_]\w*)\}\}|\{([A-Za-z_]\w*)\}")


class PromptTemplate(PlainData):
    """A template and the values of its parameters."""

    template: str = ""
    params: dict[str, str] = Field(default_factory=dict)

    @property
    def placeholders(self) -> list[str]:
        """The parameter names the template uses, in order of first use."""
        names: list[str] = []
        for match in _PLACEHOLDER.finditer(self.template):
            name = match.group(2)
            if name is not None and name not in names:
                names.append(name)
        return names

    def render(self, **overrides: str) -> str:
        """The template with every placeholder filled; a missing parameter is a `ConfigError`."""
        values = {**self.params, **overrides}
        missing = [name for name in self.placeholders if name not in values]
        if missing:
            known = ", ".join(sorted(values)) or "none"
            raise ConfigError(
                f"prompt template needs parameter {missing[0]!r}, which is not given "
                f"(given: {known})"
            )

        def fill(match: re.Match[str]) -> str:
            escaped, name = match.group(1), match.group(2)
            return "{" + escaped + "}" if escaped is not None else values[name]

        return _PLACEHOLDER.sub(fill, self.template)


SystemPrompt: TypeAlias = str | Callable[[], str]
"""A piece of the system block: text, or a function returning it (called once)."""

UserPrompt: TypeAlias = str | Sequence["UserContent"]
"""What a run is asked: text, or pydantic-ai's parts (text, images, documents)."""


def render_system_block(prompts: Sequence[SystemPrompt]) -> str:
    """The frozen system block: every piece rendered once, blank ones left out.

    It is sent unchanged with every request, so the provider's prompt cache keeps its prefix;
    anything volatile belongs in a context-update block instead.
    """
    pieces: list[str] = []
    for prompt in prompts:
        text = prompt() if callable(prompt) else prompt
        if not isinstance(text, str):
            raise ConfigError(f"a system prompt must be text, got {type(text).__name__}")
        if text.strip():
            pieces.append(text.strip())
    return "\n\n".join(pieces)
