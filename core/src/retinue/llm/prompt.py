"""`PromptTemplate`: an agent's backstory with named parameters.

Only `{identifier}` is a placeholder, so prompts may carry JSON or code with braces as they
are; `{{name}}` writes a literal `{name}`.
"""

from __future__ import annotations

import re

from pydantic import Field

from retinue.llm._data import PlainData
from retinue.llm.errors import ConfigError

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
