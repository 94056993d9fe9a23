"""`TeamMetadata`: the team's business context, written once for every agent's system prompt.

The company, the product, the conventions every member should follow belong to the team,
not to each role's backstory. An operator sets them once (on the orchestrator's config, or
a team file), with a template saying how they read; the team card renders them into every
agent's system block when the agent starts.

The template is a `string.Template`: `$company` or `${company}` names a value, `$$` is a
literal dollar. Braces are left alone, so a convention such as `JSON keys look like
{"id": 1}` needs no escaping, and values are substituted in one pass: a value holding
`$product` or `{product}` is shown as written, never expanded again. A template naming a
key the values do not have, or with a malformed placeholder, is refused when the metadata
is built, so a team never starts with a prompt that would fail at its first turn.
"""

from __future__ import annotations

from string import Template
from typing import Self

from pydantic import ConfigDict, Field, model_validator

from retinue.validation import ConfigModel, shown

MAX_VALUE_CHARS = 4_000
MAX_TEMPLATE_CHARS = 8_000


class TeamMetadata(ConfigModel):
    """Named values about the team's work, and the template that renders them."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    values: dict[str, str] = Field(default_factory=dict)
    """`{"company": "Acme", "product": "a billing API", ...}`: data, never re-expanded."""
    template: str = Field(default="", max_length=MAX_TEMPLATE_CHARS)
    """A `string.Template` over `values`; empty: a heading and one line per value."""

    @model_validator(mode="after")
    def _check(self) -> Self:
        for key, value in self.values.items():
            if not key.isidentifier():
                raise ValueError(f"metadata key {key[:40]!r} must be a Python identifier")
            if len(value) > MAX_VALUE_CHARS:
                raise ValueError(
                    f"metadata value {shown(key)} has {len(value):,} characters; "
                    f"at most {MAX_VALUE_CHARS}"
                )
        if not self.template:
            return self
        template = Template(self.template)
        if not template.is_valid():
            raise ValueError(
                "the metadata template has a malformed placeholder: write $name or ${name}, "
                "and $$ for a dollar sign"
            )
        missing = [name for name in template.get_identifiers() if name not in self.values]
        if missing:
            have = ", ".join(sorted(self.values)) or "no values"
            raise ValueError(
                f"the metadata template names {', '.join('$' + n for n in missing)}, which the "
                f"metadata does not have (it has {have})"
            )
        return self

    def render(self) -> str:
        """The text for the system prompt; empty when there is nothing to say."""
        if self.template:
            return Template(self.template).substitute(self.values).strip()
        if not self.values:
            return ""
        lines = "\n".join(f"- {key}: {value}" for key, value in self.values.items())
        return f"About the team's work:\n{lines}"
