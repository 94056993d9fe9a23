"""Counting what a model is sent: every request as the model receives it, in tokens by kind.

A scripted model is handed exactly what a provider would be sent: the instructions, the
function tools' and output tools' schemas (`AgentInfo`), and every message part. `Ledger`
keeps one `Request` per model call, its text split into `Segment`s of a kind (instructions,
schemas, payload, framing, ...), each counted with tiktoken's `o200k_base` (the GPT-4o and
GPT-4.1 vocabulary). Its file ships in the `bpe-openai` wheel: tiktoken cannot download it
here, so it is copied into tiktoken's cache under the name tiktoken looks for, and tiktoken
checks its hash as it loads it.

The order a request is laid out in (instructions, function tools, output tools, then the
messages) is the one OpenAI's chat format renders; the *cacheable prefix* of a request is
the share of its tokens that is an exact prefix of an earlier request, which is all a
provider's prompt cache can reuse.
"""

from __future__ import annotations

import gzip
import hashlib
import importlib.resources
import json
import os
import tempfile
from array import array
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    SystemPromptPart,
    TextContent,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo
from pydantic_ai.tools import ToolDefinition

_O200K_URL = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"
_O200K_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"
_SEPARATOR = 200018
"""A special token between messages (`<|endofprompt|>`): what a chat format puts there."""


@cache
def encoding() -> Any:
    """tiktoken's `o200k_base`, loaded from the copy in the `bpe-openai` wheel."""
    import tiktoken

    cache_dir = Path(os.environ.get("TIKTOKEN_CACHE_DIR") or tempfile.gettempdir()) / (
        "retinue-tiktoken"
    )
    cached = cache_dir / hashlib.sha1(_O200K_URL.encode()).hexdigest()
    if not cached.exists():
        packed = importlib.resources.files("bpe_openai.data") / "o200k_base.tiktoken.gz"
        data = gzip.decompress(packed.read_bytes())
        if hashlib.sha256(data).hexdigest() != _O200K_SHA256:
            raise RuntimeError("bpe-openai's o200k_base file is not the one tiktoken expects")
        cache_dir.mkdir(parents=True, exist_ok=True)
        partial = cached.with_suffix(".partial")
        partial.write_bytes(data)
        partial.replace(cached)
    os.environ["TIKTOKEN_CACHE_DIR"] = str(cache_dir)
    return tiktoken.get_encoding("o200k_base")


@cache
def _tokens(text: str) -> tuple[int, ...]:
    return tuple(encoding().encode(text, disallowed_special=()))


def count(text: str) -> int:
    """Tokens in `text`."""
    return len(_tokens(text)) if text else 0


@dataclass(frozen=True)
class Segment:
    """A piece of a request and what it is (`kind`); its tokens are counted on their own."""

    kind: str
    text: str

    @property
    def tokens(self) -> int:
        return count(self.text)


@dataclass
class Request:
    """One model request: whose, which run of it, and its segments in the order sent."""

    agent: str
    segments: list[Segment]
    first_of_run: bool
    sequence: array[int] = field(default_factory=lambda: array("I"))

    @property
    def tokens(self) -> int:
        return sum(segment.tokens for segment in self.segments)

    def by_kind(self) -> dict[str, int]:
        totals: dict[str, int] = {}
        for segment in self.segments:
            totals[segment.kind] = totals.get(segment.kind, 0) + segment.tokens
        return totals


Classifier = Callable[[str], list[Segment]]
"""Splits one user-prompt text into segments (payload, framing, context updates, ...)."""


def tool_schema(tool: ToolDefinition) -> str:
    """A tool as OpenAI's chat API is sent it."""
    function: dict[str, Any] = {"name": tool.name}
    if tool.description:
        function["description"] = tool.description
    function["parameters"] = tool.parameters_json_schema
    return json.dumps({"type": "function", "function": function}, separators=(",", ":"))


def segments_of(
    messages: Sequence[ModelMessage],
    info: AgentInfo,
    *,
    classify: Classifier,
    backstory: str = "",
) -> list[Segment]:
    """What one request sends, split by kind, in the order it is sent."""
    out: list[Segment] = []
    instructions = info.instructions or ""
    if backstory and backstory in instructions:
        before, _, after = instructions.partition(backstory)
        out += [
            Segment("instructions: framework", before),
            Segment("instructions: role", backstory),
        ]
        out.append(Segment("instructions: framework", after))
    elif instructions:
        out.append(Segment("instructions: framework", instructions))
    out += [Segment("tool schemas", tool_schema(tool)) for tool in info.function_tools]
    out += [Segment("output schema", tool_schema(tool)) for tool in info.output_tools]
    output_names = {tool.name for tool in info.output_tools}
    for message in messages:
        out.append(Segment("separator", ""))
        if isinstance(message, ModelRequest):
            for part in message.parts:
                out += _request_part(part, classify, output_names)
        elif isinstance(message, ModelResponse):
            for response_part in message.parts:
                out += _response_part(response_part, output_names)
    return out


def _request_part(part: object, classify: Classifier, output_names: set[str]) -> list[Segment]:
    if isinstance(part, UserPromptPart):
        items = [part.content] if isinstance(part.content, str) else list(part.content)
        found: list[Segment] = []
        for item in items:
            if isinstance(item, str):
                found += classify(item)
            elif isinstance(item, TextContent):
                found += classify(item.content)
        return found
    if isinstance(part, ToolReturnPart):
        kind = "earlier output" if part.tool_name in output_names else "tool returns"
        return [Segment(kind, part.model_response_str())]
    if isinstance(part, RetryPromptPart):
        return [Segment("retries", part.model_response())]
    if isinstance(part, SystemPromptPart):
        return [Segment("instructions: framework", part.content)]
    return []


def _response_part(part: object, output_names: set[str]) -> list[Segment]:
    if isinstance(part, ToolCallPart):
        kind = "earlier output" if part.tool_name in output_names else "tool calls"
        return [Segment(kind, f"{part.tool_name}{part.args_as_json_str()}")]
    if isinstance(part, TextPart | ThinkingPart):
        return [Segment("earlier output", part.content)]
    return []


def sequence_of(segments: Iterable[Segment]) -> array[int]:
    """The request as one token sequence (messages separated as a chat format does)."""
    tokens: array[int] = array("I")
    for segment in segments:
        if segment.kind == "separator":
            tokens.append(_SEPARATOR)
        else:
            tokens.extend(_tokens(segment.text))
    return tokens


def common_prefix(a: array[int], b: array[int]) -> int:
    """The length of the longest common prefix of two token sequences (bisection on bytes)."""
    low, high = 0, min(len(a), len(b))
    if a[:high] == b[:high]:
        return high
    while low < high:  # invariant: a[:low] == b[:low] and a[:high+1] differ somewhere
        middle = (low + high + 1) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle - 1
    return low


class Ledger:
    """Every request of one workload, in call order."""

    def __init__(self) -> None:
        self.requests: list[Request] = []

    def add(self, agent: str, segments: list[Segment], *, first_of_run: bool) -> None:
        request = Request(agent, segments, first_of_run, sequence_of(segments))
        self.requests.append(request)

    @property
    def tokens(self) -> int:
        return sum(request.tokens for request in self.requests)

    @property
    def runs(self) -> int:
        return sum(request.first_of_run for request in self.requests)

    def by_kind(self) -> dict[str, int]:
        totals: dict[str, int] = {}
        for request in self.requests:
            for kind, tokens in request.by_kind().items():
                totals[kind] = totals.get(kind, 0) + tokens
        return totals

    def cached_shares(self) -> tuple[float, float]:
        """Tokens that are an exact prefix of (the agent's previous request, any earlier
        request of the team), as shares of all tokens sent."""
        own = team = 0
        last: dict[str, array[int]] = {}
        earlier: list[array[int]] = []
        for request in self.requests:
            sequence = request.sequence
            previous = last.get(request.agent)
            own += common_prefix(sequence, previous) if previous is not None else 0
            team += max((common_prefix(sequence, e) for e in earlier), default=0)
            last[request.agent] = sequence
            earlier.append(sequence)
        total = sum(len(request.sequence) for request in self.requests) or 1
        return own / total, team / total
