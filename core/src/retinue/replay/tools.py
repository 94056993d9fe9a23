"""The tool definitions of a turn: folded from the record's changes, compared on replay.

A runner records its tool definitions only when they change (`ToolDefinitionsEvent`: the
names offered, and the definitions not recorded before). `OfferedFolder` folds those
changes, agent by agent, into the definitions in force for each turn; `changes` turns a
lane of turns back into such changes (a cassette's rows); `tools_difference` names the
first tool a replayed request offers otherwise than the recorded one.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic_ai.models.function import AgentInfo

from retinue.actors.redaction import redact_credentials
from retinue.llm.offered_tools import definition_data
from retinue.replay.compare import first_difference

Definition = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Offered:
    """The definitions a request offered: its function tools and its output tools, in order."""

    function: tuple[Definition, ...] = ()
    output: tuple[Definition, ...] = ()


def offered_of(info: AgentInfo) -> Offered:
    """What a replayed request offers, in the record's form."""
    return Offered(
        tuple(definition_data(tool) for tool in info.function_tools),
        tuple(definition_data(tool) for tool in info.output_tools),
    )


class OfferedFolder:
    """The definitions in force for each agent, as its recorded changes say."""

    def __init__(self) -> None:
        self._known: dict[str, dict[str, Definition]] = {}
        self._current: dict[str, Offered] = {}

    def add(
        self,
        agent: str,
        function: Sequence[str],
        output: Sequence[str],
        definitions: Sequence[Definition],
    ) -> None:
        """A change: the names offered from now on, and the definitions new since the last.

        A name whose definition was never recorded is a `ValueError` (a damaged cassette)."""
        known = self._known.setdefault(agent, {})
        for definition in definitions:
            known[str(definition["name"])] = definition
        unknown = [name for name in (*function, *output) if name not in known]
        if unknown:
            raise ValueError(f"{agent} offers {', '.join(unknown)}, never defined before")
        self._current[agent] = Offered(
            tuple(known[name] for name in function), tuple(known[name] for name in output)
        )

    def current(self, agent: str) -> Offered | None:
        """What `agent` offers now; None before any change of its was recorded."""
        return self._current.get(agent)


@dataclass(frozen=True, slots=True)
class Change:
    """What `OfferedFolder.add` takes: the names offered, the definitions new since the last."""

    function_tools: list[str]
    output_tools: list[str]
    definitions: list[Definition]


def changes(offered: Sequence[Offered | None]) -> Iterator[tuple[int, Change]]:
    """One agent's turns' definitions as changes: (index of the turn it comes before, change)."""
    known: dict[str, Definition] = {}
    last: Offered | None = None
    for index, now in enumerate(offered):
        if now is None or now == last:
            continue
        new = []
        for definition in (*now.function, *now.output):
            name = str(definition["name"])
            if known.get(name) != definition:
                known[name] = definition
                new.append(definition)
        names = [str(d["name"]) for d in now.function]
        yield index, Change(names, [str(d["name"]) for d in now.output], new)
        last = now


def tools_difference(
    recorded: Offered, replayed: Offered, gated: frozenset[str] = frozenset()
) -> str | None:
    """None when the same tools are offered with the same definitions; else the first tool
    that differs: added, removed, or which of its fields (a parameter, the description).

    A `gated` tool (one a card offers only at times) may be offered or not: that may be
    timing (a mail-reading tool while mail waits); its definition is compared when both are.
    """
    for kind, was, now in (
        ("tool", recorded.function, replayed.function),
        ("output tool", recorded.output, replayed.output),
    ):
        before = {str(d["name"]): redact_credentials(d) for d in was}  # as a cassette has them
        after = {str(d["name"]): redact_credentials(d) for d in now}
        for name, definition in before.items():
            if name not in after:
                if name in gated:
                    continue
                return f"{kind} {name} is no longer offered"
            detail = _definition_difference(definition, after[name])
            if detail is not None:
                return f"{kind} {name}: {detail}"
        for name, definition in after.items():
            if name not in before and name not in gated:
                return f"{kind} {name} is offered, the record has no such tool\n" + _shown(
                    definition
                )
    return None


def _definition_difference(was: Definition, now: Definition) -> str | None:
    if was.get("description") != now.get("description"):
        diff = first_difference(_lines(was.get("description")), _lines(now.get("description")))
        return f"its description differs\n{diff}"
    old, new = was.get("parameters") or {}, now.get("parameters") or {}
    if old != new:
        return _parameters_difference(old, new)
    if was.get("strict") != now.get("strict"):
        return f"strict was {was.get('strict')}, is {now.get('strict')}"
    return None


def _parameters_difference(old: dict[str, Any], new: dict[str, Any]) -> str:
    """The first parameter added, removed or changed; else the schema's own diff."""
    old_props, new_props = old.get("properties") or {}, new.get("properties") or {}
    for name in old_props:
        if name not in new_props:
            return f"parameter {name} was removed"
    for name, schema in new_props.items():
        if name not in old_props:
            return f"parameter {name} was added\n+ {_json(schema)}"
    for name, schema in old_props.items():
        if schema != new_props[name]:
            diff = first_difference([_json(schema)], [_json(new_props[name])])
            return f"parameter {name} differs\n{diff}"
    diff = first_difference(_json(old, 1).splitlines(), _json(new, 1).splitlines())
    return f"its parameters' schema differs\n{diff}"


def _lines(text: Any) -> list[str]:
    return str(text).splitlines() if text is not None else []


def _json(value: Any, indent: int | None = None) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, indent=indent)


def _shown(definition: Definition) -> str:
    text = f"+ {_json(definition)}"
    return text if len(text) <= 400 else text[:397] + "..."
