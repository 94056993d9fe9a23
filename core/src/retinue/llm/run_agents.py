"""The pydantic-ai agents runners drive: built once per shape and shared, and their tools.

Building a pydantic-ai agent builds its output schema and its tools' schemas, and its first
run builds its graph: about 10 ms and 100 KB, which every hired member would pay on its
first turn. So agents are shared: runners of the same shape (model, output type, settings,
retry policy, label, and tools that are the same functions) use one agent, built by the
first of them. What differs between members travels with each run: the system block as the
run's instructions, and the member's own tool functions in the run's `RunBinding`, which
the shared agent's tools call (each tool's schema is its function's, worked out once).

Capabilities are part of the shape, by identity: a `SharedCapability` (one instance, no
state of its own, given to every agent, as retinue-web's activity notes are) keeps runners
sharing. A runner whose tools cannot be shared (a card's own `Tool` objects or toolsets) or
that has other capabilities of its own (a plugin's, an agent class's `extra_capabilities`,
which may keep state per member) gets an agent of its own, built as before; bound methods
among its tools still reuse the schema worked out for their function.
"""

from __future__ import annotations

import dataclasses
import inspect
import threading
import weakref
from collections.abc import Callable, Hashable, Sequence
from typing import Any, ClassVar, TypeGuard

from pydantic_ai import Agent, AgentCapability, RunContext, Tool
from pydantic_ai.agent import AgentRetries
from pydantic_ai.capabilities import AbstractCapability, PrepareTools
from pydantic_ai.models import Model
from pydantic_ai.settings import ModelSettings
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.toolsets import AbstractToolset

from retinue.llm.config import RuntimeConfig
from retinue.llm.run_hooks import RUNNER_CAPABILITY, current_binding
from retinue.llm.tool_effects import effect_metadata, function_effect


def output_key(output_type: Any) -> object:
    """The key the agent for `output_type` is kept under (its identity when unhashable)."""
    try:
        hash(output_type)
    except TypeError:
        return ("unhashable", id(output_type))
    key: object = output_type
    return key


def build_run_agent(
    model: Model,
    output_type: Any,
    *,
    name: str,
    instructions: str | None,
    tools: Sequence[Tool[Any] | Callable[..., Any]],
    toolsets: Sequence[AbstractToolset[Any]],
    capabilities: Sequence[AgentCapability[Any]],
    runtime: RuntimeConfig,
    settings: ModelSettings,
) -> Agent[Any, Any]:
    """A pydantic-ai agent that answers with `output_type` under the runtime's retry policy."""
    output_retries = runtime.output_retries
    retries: AgentRetries = {
        "tools": runtime.retries,
        "output": runtime.retries if output_retries is None else output_retries,
    }
    return Agent(
        model,
        output_type=output_type,
        instructions=instructions,
        tools=[_tool(tool) for tool in tools],
        toolsets=toolsets,
        capabilities=[RUNNER_CAPABILITY, *capabilities],
        retries=retries,
        end_strategy=runtime.end_strategy,
        model_settings=settings,
        tool_timeout=runtime.tool_timeout,
        name=name,
        defer_model_check=True,
    )


def _no_function_tools(
    ctx: RunContext[Any], tool_defs: list[ToolDefinition]
) -> list[ToolDefinition]:
    return []


WITHOUT_FUNCTION_TOOLS: PrepareTools[Any] = PrepareTools(_no_function_tools)
"""The capability a conclusion runs with: it offers the model no function tool at all, so
the model answers with what it has (its output tools stay)."""


# ---------------------------------------------------------------------- shared agents
class SharedCapability(AbstractCapability[Any]):
    """A capability with no state of its own, whose one instance serves every agent.

    Give every agent the same instance (a plugin's `retinue_capabilities` returning a
    module-level one) and runners that are alike in everything else keep sharing one
    pydantic-ai agent: a hired member then costs no agent build of its own (about 8 ms of
    CPU and 70 KB). Whatever a run needs to know arrives in its `RunContext` (`ctx.deps` is
    the agent); state kept on the instance would be every agent's at once.
    """


def shares_agents(
    capabilities: Sequence[AgentCapability[Any]],
) -> TypeGuard[Sequence[SharedCapability]]:
    """Whether runners with these capabilities of their own may share their agent."""
    return all(isinstance(capability, SharedCapability) for capability in capabilities)


class _Shared:
    """The shared agents, by shape; an agent no runner holds any more is let go."""

    lock: ClassVar[threading.Lock] = threading.Lock()
    agents: ClassVar[weakref.WeakValueDictionary[Hashable, Agent[Any, Any]]] = (
        weakref.WeakValueDictionary()
    )


def shared_run_agent(
    model: Model,
    output_type: Any,
    *,
    label: str,
    tools: Sequence[Tool[Any] | Callable[..., Any]],
    runtime: RuntimeConfig,
    settings: ModelSettings,
    capabilities: Sequence[SharedCapability] = (),
) -> Agent[Any, Any] | None:
    """The agent every runner of this shape uses, built on first request; None when this
    runner cannot share one (tools that are not plain functions or bound methods, settings
    that cannot be compared). Runs pass their instructions and bind their tools
    (`member_tools`) themselves."""
    shape = _tool_shape(tools)
    settings_key = _settings_key(settings)
    if shape is None or settings_key is None:
        return None
    key = (
        id(model),  # the agent holds the model, so the id is not reused while it lives
        output_key(output_type),
        label,
        shape,
        settings_key,
        runtime.retries,
        runtime.output_retries,
        runtime.end_strategy,
        runtime.tool_timeout,
        tuple(id(capability) for capability in capabilities),  # held by the agent: not reused
    )
    with _Shared.lock:
        agent = _Shared.agents.get(key)
        if agent is None:
            calling = [_calling_tool(tool) for tool in tools if not isinstance(tool, Tool)]
            if any(tool is None for tool in calling):
                return None
            agent = build_run_agent(
                model,
                output_type,
                name=label,
                instructions=None,
                tools=[tool for tool in calling if tool is not None],
                toolsets=(),
                capabilities=capabilities,
                runtime=runtime,
                settings=settings,
            )
            _Shared.agents[key] = agent
        return agent


def member_tools(tools: Sequence[Tool[Any] | Callable[..., Any]]) -> dict[str, Callable[..., Any]]:
    """A runner's tool functions by tool name, for its runs' `RunBinding`."""
    return {_function_name(tool): tool for tool in tools if callable(tool)}


def _function_name(function: Callable[..., Any]) -> str:
    name: str = function.__name__
    return name


def _underlying(tool: object) -> Callable[..., Any] | None:
    """The function a shareable tool runs (a bound method's function), else None."""
    if isinstance(tool, Tool):
        return None
    if inspect.ismethod(tool):
        return tool.__func__
    if inspect.isfunction(tool):
        return tool
    return None


def _tool_shape(tools: Sequence[Tool[Any] | Callable[..., Any]]) -> Hashable | None:
    """What decides the shared agent's tools: each tool's function and name; None when one
    cannot be shared."""
    shape = []
    for tool in tools:
        function = _underlying(tool)
        if function is None:
            return None
        shape.append((function, _function_name(function)))
    return tuple(shape)


def _calling_tool(tool: Callable[..., Any]) -> Tool[Any] | None:
    """A tool whose schema is `tool`'s and that calls the current run's function of that
    name (`RunBinding.tools`); None when the schema cannot be carried over."""
    name = _function_name(tool)
    schema = _tool(tool).function_schema
    call = _caller(name, is_async=schema.is_async)
    try:
        carried = dataclasses.replace(schema, function=call)
    except TypeError:  # a schema that is not a dataclass any more: share nothing
        return None
    return Tool(call, name=name, function_schema=carried, metadata=_declared(tool))


def _caller(name: str, *, is_async: bool) -> Callable[..., Any]:
    """The function a shared tool runs: the current run's own function `name`."""

    def resolve() -> Callable[..., Any]:
        binding = current_binding()
        function = binding.tools.get(name) if binding is not None else None
        if function is None:
            raise RuntimeError(f"tool {name!r} was called outside a run that provides it")
        return function

    if is_async:

        async def call_async(*args: Any, **kwargs: Any) -> Any:
            return await resolve()(*args, **kwargs)

        call_async.__name__ = name
        return call_async

    def call(*args: Any, **kwargs: Any) -> Any:
        return resolve()(*args, **kwargs)

    call.__name__ = name
    return call


def _settings_key(settings: ModelSettings) -> Hashable | None:
    try:
        key = tuple(sorted(settings.items()))
        hash(key)
    except TypeError:
        return None
    return key


# ---------------------------------------------------------------------- tool schemas
class _Schemas:
    """A tool built once per function: its schema serves every later binding of it."""

    lock: ClassVar[threading.Lock] = threading.Lock()
    tools: ClassVar[weakref.WeakKeyDictionary[Callable[..., Any], Tool[Any]]] = (
        weakref.WeakKeyDictionary()
    )


def _tool(function: Tool[Any] | Callable[..., Any]) -> Tool[Any]:
    """A fresh `Tool` for `function`, its schema taken from the first tool of the same function."""
    if isinstance(function, Tool):
        return function
    metadata = _declared(function)
    underlying = _underlying(function)
    if underlying is None:
        return Tool(function, metadata=metadata)
    with _Schemas.lock:
        first = _Schemas.tools.get(underlying)
    if first is None:
        tool = Tool(function, metadata=metadata)
        with _Schemas.lock:
            _Schemas.tools.setdefault(underlying, tool)
        return tool
    try:
        schema = dataclasses.replace(first.function_schema, function=function)
    except TypeError:  # a schema that is not a dataclass any more: work it out again
        return Tool(function, metadata=metadata)
    return Tool(function, function_schema=schema, metadata=metadata)


def _declared(function: Callable[..., Any]) -> dict[str, Any] | None:
    """The metadata of a function declared with `tool_effect` (the ledger reads it)."""
    effect = function_effect(function)
    return effect_metadata(effect) if effect is not None else None
