"""`ToolCard`: one feature, described once, served to an agent through the four channels.

A card in a config is a blueprint. The agent never uses that object: it binds a deep copy of
it to itself, so two agents configured with the same card object can never act for each
other, and the config stays plain data that can be written to a team file and resumed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Self, TypeVar

from pydantic import BaseModel, ConfigDict, PrivateAttr, ValidationError

from retinue.tools.channels import Channel, ContextProvider
from retinue.tools.errors import CardNotBoundError, CardStateError
from retinue.tools.state import tool_state_of
from retinue.validation import ConfigModel, ConfigValidationError

if TYPE_CHECKING:
    from pydantic_ai import Tool
    from pydantic_ai.toolsets import AbstractToolset

    from retinue.tools.host import ToolHost


CardStateT = TypeVar("CardStateT", bound=BaseModel)


class _Binding:
    """Holds the agent a card is bound to; any copy of it is empty.

    Copying or pickling a card must never carry its agent along: the copy would act for the
    wrong agent, and a live actor can be neither copied nor pickled. Nor does it take part
    in equality: a card equals another of its class with the same fields.
    """

    __slots__ = ("host",)

    def __init__(self, host: ToolHost | None = None) -> None:
        self.host = host

    def __copy__(self) -> _Binding:
        return _Binding()

    def __deepcopy__(self, memo: dict[int, Any]) -> _Binding:
        return _Binding()

    def __reduce__(self) -> tuple[type[_Binding], tuple[()]]:
        return (_Binding, ())

    def __eq__(self, other: object) -> bool:
        # Cards compare by their fields: who a card is bound to is not part of its value.
        return isinstance(other, _Binding)

    def __hash__(self) -> int:
        return 0


_CHANNEL_METHODS: Mapping[Channel, tuple[str, ...]] = {
    Channel.TOOL_CALL: ("get_tools", "get_toolsets"),
    Channel.SYSTEM_PROMPT: ("get_system_prompts",),
    Channel.LLM_CONTEXT: ("get_context_states",),
    Channel.COMMAND: ("get_commands",),
}


class ToolCard(ConfigModel):
    """Base class of every tool card.

    Subclasses set `name` (how team files refer to the card: `tools = ["planning"]`), declare
    their configuration as pydantic fields, and override the channel methods they serve;
    every channel is empty by default. Runtime resources (clients, caches) belong in
    `on_bind`, not in fields: fields are deep-copied for every agent. Bad settings are one
    line each, raised as a `ConfigError` that is also pydantic's `ValidationError`.
    """

    model_config = ConfigDict(extra="forbid", defer_build=True)
    config_error = ConfigValidationError

    name: ClassVar[str]
    """The card's name in team files and command descriptors; unique among installed cards."""
    default: ClassVar[bool] = False
    """Installed default cards are prepended to every agent's cards unless already configured."""
    how_to_read_mail: ClassVar[str | None] = None
    """Set by a card whose tool lets the model read its mailbox mid-run: the instruction the
    kernel's arrival notice gives the model ("Call read_mailbox to read them now")."""

    _binding: _Binding = PrivateAttr(default_factory=_Binding)

    # -- binding ---------------------------------------------------------------------------

    def bind(self, host: ToolHost) -> Self:
        """A deep copy of this card bound to `host`; this card itself is left untouched."""
        bound = self.model_copy(deep=True)
        bound._binding = _Binding(host)  # noqa: SLF001 (the copy is this class's own)
        bound.on_bind()
        return bound

    def unbind(self) -> None:
        """Release the agent (when it stops); a no-op for an unbound card."""
        if self._binding.host is None:
            return
        try:
            self.on_unbind()
        finally:
            self._binding = _Binding()

    @property
    def is_bound(self) -> bool:
        """Whether this card acts for an agent."""
        return self._binding.host is not None

    @property
    def host(self) -> ToolHost:
        """The agent this card acts for; raises `CardNotBoundError` on an unbound card."""
        host = self._binding.host
        if host is None:
            raise CardNotBoundError(
                f"tool card {type(self).__qualname__} is not bound to an agent: bind(host) "
                "returns a bound copy (the agent's ToolFactory does this); the card in a "
                "config is only a blueprint"
            )
        return host

    def card_key(self) -> str:
        """What tells this card apart among one agent's cards: its `name`, by default.

        An agent holds each card once. A card of which an agent may hold several instances
        (one per MCP server) answers with its name and what sets the instance apart
        (`"mcp:files"`); two cards with the same key are a `DuplicateToolCardError`.
        """
        return card_name(self)

    def on_bind(self) -> None:
        """Hook: runs on the bound copy once `host` is set; acquire runtime resources here."""

    def on_unbind(self) -> None:
        """Hook: runs when the agent releases the card; free what `on_bind` acquired."""

    # -- the card's own state ----------------------------------------------------------------

    def card_state(self, state_class: type[CardStateT]) -> CardStateT:
        """This card's own state in its agent's checkpoint, as a `state_class` model.

        Created empty (`state_class()`) on first use. Change it in place or give a new one
        to `set_card_state`: the agent's next checkpoint carries it, and a resumed agent's
        card reads it back here (validated into `state_class`, once). Read it through this
        method on every use, never keep it: a resume replaces the agent's whole state.
        Raises `CardStateError` when the checkpointed data does not fit `state_class` (a
        card whose state model changed); the data is left as it was.
        """
        slot = tool_state_of(self.host.state).cards
        key = card_name(self)
        current = slot.get(key)
        if isinstance(current, state_class):
            return current
        try:
            state = state_class() if current is None else state_class.model_validate(current)
        except ValidationError as exc:
            raise CardStateError(
                f"the checkpointed state of tool card {key!r} does not fit "
                f"{state_class.__qualname__}: {exc.error_count()} problem(s), first: "
                f"{_first_problem(exc)}"
            ) from None
        slot[key] = state
        return state

    def set_card_state(self, state: BaseModel) -> None:
        """Replace this card's own state (for immutable state models); checkpointed next."""
        tool_state_of(self.host.state).cards[card_name(self)] = state

    # -- channels --------------------------------------------------------------------------

    def get_tools(self) -> Sequence[Tool[Any] | Callable[..., Any]]:
        """TOOL_CALL: tools the model may call (pydantic-ai `Tool`s or plain functions)."""
        return ()

    def get_toolsets(self) -> Sequence[AbstractToolset[Any]]:
        """TOOL_CALL: whole pydantic-ai toolsets (MCP servers, filtered sets, ...)."""
        return ()

    def tool_offered(self, name: str) -> bool:
        """TOOL_CALL: whether the model's next request offers this card's tool `name`.

        Asked before every model request of every run, so answer from what the card already
        knows (no I/O, no asks, nothing that grows with the team). Every tool schema offered
        is paid for on every request; offer a tool only while the model can use it. A tool
        left out is still run if the model calls it anyway (it remembers it from an earlier
        request): offering decides what a request carries, the tool decides what it does.
        """
        return True

    def unavailable(self) -> Sequence[str]:
        """What this card holds back here and why, one line each (a tool whose key is unset).

        Read from a card with its settings, bound or not, by `retinue plugins` and `retinue
        check`, so a person learns why a tool is missing without running a team; never shown
        to a model. Answer from the settings and the environment; a probe of the system
        (a program it needs) is made once and cached.
        """
        return ()

    def get_system_prompts(self) -> Sequence[str | Callable[[], str]]:
        """SYSTEM_PROMPT: stable text for the system block; never volatile team state."""
        return ()

    def get_context_states(self) -> Mapping[str, ContextProvider]:
        """LLM_CONTEXT: named providers of volatile state, diffed before every run."""
        return {}

    def get_commands(self) -> Sequence[Callable[..., Any]]:
        """COMMAND: callables for the command registry, keyed by their `__name__`."""
        return ()

    @classmethod
    def channels(cls) -> frozenset[Channel]:
        """The channels this card class serves, i.e. whose methods it overrides."""
        return frozenset(
            channel
            for channel, methods in _CHANNEL_METHODS.items()
            if any(getattr(cls, m) is not getattr(ToolCard, m) for m in methods)
        )


def _first_problem(exc: ValidationError) -> str:
    error = exc.errors()[0]
    where = ".".join(str(part) for part in error["loc"]) or "the state"
    return f"{where}: {error['msg']}"


def card_name(card: ToolCard | type[ToolCard]) -> str:
    """The `name` of a card or card class; a clear error when the class forgot to set it."""
    cls = card if isinstance(card, type) else type(card)
    name = getattr(cls, "name", None)
    if not isinstance(name, str) or not name:
        raise TypeError(
            f"tool card class {cls.__module__}.{cls.__qualname__} must set the class "
            'attribute `name` (e.g. `name: ClassVar[str] = "planning"`)'
        )
    return name
