"""Cassettes: a team's model exchanges as a reviewable file, and back.

A cassette is JSON lines, sorted keys, one object a line, written so that exporting the same
session twice gives the same file and a re-recorded one a readable diff:

- `{"kind": "cassette", "version": 2, "source": TEAM_ID}` first;
- `{"kind": "say", "to": "@Lead", "intent": "request", "content": ...}`: the person's
  messages, in order;
- `{"kind": "tools", "agent": "@Lead", "turn": 1, "function_tools": [...], "output_tools":
  [...], "definitions": [...]}`: the tools an agent offers from that turn on, before it, only
  when they change (the names; the definitions not given before: name, description,
  parameters, strict);
- `{"kind": "exchange", "agent": "@Lead", "turn": 1, "instructions": ..., "request": [...],
  "response": {...}}`: one model turn, by agent then turn; a tool's result is in the next
  turn's request, as the model was shown it;
- `{"kind": "answer", "from": "@Lead", "content": ...}`: what reached the person, by sender.

What differs run to run is left out or made stable: timestamps and run ids go, the date in
an agent's identity line reads `<date>`, tool call ids are numbered per agent. Every string
has its credentials redacted as a record's configs do (`redact_credentials`).
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

from pydantic_ai.messages import ModelResponse

from retinue.actors.redaction import redact_credentials
from retinue.llm.events import data_to_message
from retinue.replay.compare import instructions_form, stable
from retinue.replay.script import Answer, ReplayError, Say, Script, Turn
from retinue.replay.tools import OfferedFolder, changes

#: 2: tool definitions (`tools` rows); a version 1 cassette replays without comparing them.
VERSION = 2


def cassette_lines(script: Script) -> list[str]:
    """The cassette of `script`, line by line (no newlines)."""
    rows: list[dict[str, Any]] = [{"kind": "cassette", "version": VERSION, "source": script.source}]
    rows += [
        {"kind": "say", "to": s.to, "intent": s.intent, "content": s.content}
        for s in script.steps
        if isinstance(s, Say)
    ]
    for agent in sorted(script.turns):
        ids: dict[str, str] = {}
        turns = script.turns[agent]
        tools = dict(changes([turn.tools for turn in turns]))
        for index, turn in enumerate(turns):
            change = tools.get(index)
            if change is not None:
                row = {"kind": "tools", "agent": agent, "turn": turn.number, **asdict(change)}
                rows.append(row)
            rows.append(_exchange(turn, ids))
    answers = sorted(enumerate(script.answers), key=lambda pair: (pair[1].sender, pair[0]))
    rows += [{"kind": "answer", "from": a.sender, "content": a.content} for _, a in answers]
    return [json.dumps(redact_credentials(row), sort_keys=True, ensure_ascii=False) for row in rows]


def write_cassette(script: Script, path: str | Path) -> int:
    """Write the cassette of `script` to `path`; how many exchanges it holds."""
    Path(path).write_text("\n".join(cassette_lines(script)) + "\n", encoding="utf-8")
    return sum(len(turns) for turns in script.turns.values())


def _exchange(turn: Turn, ids: dict[str, str]) -> dict[str, Any]:
    """One turn, without what differs run to run; the agent's tool call ids (generated
    anew on every run) numbered in order, the same in the answer and the result."""
    response = stable(turn.response)
    response["parts"] = [_part(part, ids) for part in response.get("parts", [])]
    instructions = turn.instructions
    return {
        "kind": "exchange",
        "agent": turn.agent,
        "turn": turn.number,
        "instructions": instructions_form(instructions) if instructions is not None else None,
        "request": [_part(part, ids) for part in turn.request],
        "response": response,
    }


def _part(part: dict[str, Any], ids: dict[str, str]) -> dict[str, Any]:
    kept = stable(part)
    call_id = kept.get("tool_call_id")
    if isinstance(call_id, str):
        kept["tool_call_id"] = ids.setdefault(call_id, f"call-{len(ids) + 1}")
    return kept


def read_cassette(path: str | Path) -> Script:
    """The script a cassette holds; `ReplayError` naming the file (and line) when it is
    missing or is not a cassette."""
    where = Path(path)
    try:
        text = where.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ReplayError(f"cassette {where} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ReplayError(f"cassette {where} cannot be read: {exc}") from None
    script = Script(source=str(where))
    tools = OfferedFolder()
    lines = [(n, line) for n, line in enumerate(text.splitlines(), start=1) if line.strip()]
    if not lines:
        raise ReplayError(f"cassette {where} is empty")
    for number, line in lines:
        try:
            row = json.loads(line)
        except ValueError as exc:
            raise ReplayError(f"cassette {where} line {number} is not JSON: {exc}") from None
        try:
            if not isinstance(row, dict):
                raise ValueError("it is not a JSON object")
            _add(script, tools, row, first=number == lines[0][0])
        except (ValueError, KeyError, TypeError) as exc:
            problem = f"it has no field {exc}" if isinstance(exc, KeyError) else str(exc)
            problem = problem.splitlines()[0] if problem else type(exc).__name__
            raise ReplayError(f"cassette {where} line {number}: {problem}") from None
    return script


def _add(script: Script, tools: OfferedFolder, row: dict[str, Any], *, first: bool) -> None:
    kind = row["kind"]
    if first != (kind == "cassette"):
        raise ValueError('a cassette starts with its header line ("kind": "cassette"), once')
    if kind == "cassette":
        if not isinstance(row["version"], int) or row["version"] > VERSION:
            raise ValueError(f"version {row['version']} (this retinue reads up to {VERSION})")
    elif kind == "say":
        script.steps.append(Say(str(row["to"]), str(row["content"]), str(row["intent"])))
    elif kind == "exchange":
        turns = script.turns.setdefault(str(row["agent"]), [])
        request, response = row["request"], row["response"]
        if not isinstance(request, list) or not isinstance(response, dict):
            raise ValueError("an exchange's request is a list and its response an object")
        if not isinstance(data_to_message(response), ModelResponse):
            raise ValueError("an exchange's response is a model response")
        agent = str(row["agent"])
        turns.append(
            Turn(
                agent, len(turns) + 1, request, row["instructions"], response, tools.current(agent)
            )
        )
    elif kind == "tools":
        function, output = row["function_tools"], row["output_tools"]
        definitions = row["definitions"]
        if not all(isinstance(item, list) for item in (function, output, definitions)):
            raise ValueError("a tools row's names and definitions are lists")
        if not all(isinstance(d, dict) and isinstance(d.get("name"), str) for d in definitions):
            raise ValueError("a tool definition is an object with a name")
        tools.add(str(row["agent"]), function, output, definitions)
    elif kind == "answer":
        script.answers.append(Answer(str(row["from"]), str(row["content"])))
    else:
        raise ValueError(f"unknown kind {kind!r}")
