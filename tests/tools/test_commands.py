"""The command registry: registration, the text and Python surfaces, coercion, rendering.

The commands below are module-level so their annotations (strings, under
`from __future__ import annotations`) resolve the way a card module's do.
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
import functools
import json
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, Any, Literal, Optional

import pytest
from pydantic import BaseModel, Field
from retinue.actors.address import ActorAddress
from retinue.tools.commands import (
    CommandDescriptor,
    CommandNotRecognized,
    CommandRegistry,
    DuplicateCommandError,
    render_result,
)

if TYPE_CHECKING:
    from decimal import Decimal  # deliberately unavailable at run time


class FakeTeam:
    """Commands shaped like the team card's, bound methods included."""

    def __init__(self) -> None:
        self.hired: list[tuple[str, str | None]] = []
        self.fired: list[str] = []

    def hire_member(self, role: str, name: str | None = None) -> ActorAddress:
        """Hire a member by role.

        The second line is detail the descriptor leaves out.
        """
        self.hired.append((role, name))
        return ActorAddress(name=name or f"@{role}1", role=role)

    def fire_member(self, name: str) -> None:
        """Fire a member by name."""
        self.fired.append(name)

    def team_members(self) -> list[ActorAddress]:
        """Current team roster."""
        return [ActorAddress(name="@Ada", role="Developer"), ActorAddress(name="@Bo", role="QA")]


def search_planning(query: str, limit: int = 10) -> str:
    """Search the shared task board."""
    return f"query={query!r} limit={limit}"


class Colour(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Point(BaseModel):
    x: int
    y: int = 0


class Task(BaseModel):
    id: int
    title: str
    owner: ActorAddress | None = None


@dataclasses.dataclass
class Pair:
    left: str
    right: int


def echo(value: Any) -> Any:
    """Return the value untouched, so tests can see what coercion produced."""
    return value


def typed(
    *,
    count: int = 0,
    ratio: float = 0.0,
    flag: bool = False,
    mode: Literal["fast", "slow"] = "fast",
    level: Literal[1, 2, 3] = 1,
    note: Optional[str] = None,  # noqa: UP045 -- the Optional spelling is under test
    limit: int | None = None,
    tags: list[str] | None = None,
    ids: set[int] | None = None,
    span: tuple[int, int] | None = None,
    colour: Colour = Colour.RED,
    point: Point | None = None,
    day: datetime.date | None = None,
    positive: Annotated[int, Field(ge=1)] = 1,
) -> dict[str, Any]:
    """Take one parameter of every kind the coercion supports."""
    return dict(locals())


def unresolved(amount: Decimal, label: str = "x") -> tuple[Any, str]:
    """A parameter whose annotation names a TYPE_CHECKING-only import."""
    return amount, label


def gather(first: str, *rest: int) -> tuple[str, tuple[int, ...]]:
    """Collect positional leftovers in *args."""
    return first, rest


def keyword_only(*, target: str, dry_run: bool = False) -> str:
    """A required keyword-only parameter."""
    return f"{target} dry_run={dry_run}"


def positional_only(source: str, /, copies: int = 1) -> str:
    """A positional-only parameter: `source=x` is a value, not a keyword."""
    return f"{source} x{copies}"


def explode(reason: str = "boom") -> str:
    """Always fails."""
    raise RuntimeError(reason)


def _expand_media_refs(prompt: str) -> str:
    """Internal: never announced, still callable."""
    return prompt.upper()


@pytest.fixture
def team() -> FakeTeam:
    return FakeTeam()


@pytest.fixture
def registry(team: FakeTeam) -> CommandRegistry:
    registry = CommandRegistry()
    registry.register(team.hire_member, owner="team")
    registry.register(team.fire_member, owner="team")
    registry.register(team.team_members, owner="team")
    registry.register(search_planning, owner="planning")
    for command in (
        echo,
        typed,
        unresolved,
        gather,
        keyword_only,
        positional_only,
        explode,
        _expand_media_refs,
    ):
        registry.register(command)
    return registry


# -- registration ----------------------------------------------------------------------------


def test_commands_are_keyed_by_name_and_bound_methods_work(
    registry: CommandRegistry, team: FakeTeam
) -> None:
    assert registry.has("hire_member")
    assert "fire_member" in registry
    assert not registry.has("cmd_hire_member")
    address = registry.callable("hire_member")("Developer")
    assert isinstance(address, ActorAddress)  # the native value, not text
    assert team.hired == [("Developer", None)]


def test_a_duplicate_name_names_both_owners(registry: CommandRegistry) -> None:
    def hire_member(role: str) -> None:
        """Another card's hire."""

    with pytest.raises(DuplicateCommandError, match=r"'hire_member'.*card 'team'.*card 'hr'"):
        registry.register(hire_member, owner="hr")


def test_a_duplicate_without_owner_says_so(registry: CommandRegistry) -> None:
    with pytest.raises(DuplicateCommandError, match=r"'echo'.*no card.*no card"):
        registry.register(echo)


def test_register_returns_the_function_and_accepts_a_name() -> None:
    registry = CommandRegistry()

    @registry.register
    def status() -> str:
        """Say how things are."""
        return "fine"

    registry.register(lambda: "pong", name="ping")

    assert status() == "fine"
    assert registry.dispatch("/status") == "fine"
    assert registry.dispatch("/ping") == "pong"
    assert list(registry) == ["status", "ping"]
    assert len(registry) == 2


def test_register_refuses_what_cannot_be_a_command() -> None:
    registry = CommandRegistry()

    async def later() -> None:
        """Asynchronous."""

    with pytest.raises(TypeError, match="callable"):
        registry.register(42)  # type: ignore[type-var]
    with pytest.raises(ValueError, match="identifier"):
        registry.register(lambda: None)
    with pytest.raises(TypeError, match="synchronous"):
        registry.register(later)


def test_callable_of_an_unknown_name_raises_command_not_recognized(
    registry: CommandRegistry,
) -> None:
    with pytest.raises(CommandNotRecognized, match="no command named 'nope'"):
        registry.callable("nope")


# -- dispatch: binding -----------------------------------------------------------------------


def test_hire_member_binds_a_positional_and_a_keyword(
    registry: CommandRegistry, team: FakeTeam
) -> None:
    assert registry.dispatch("/hire_member Developer name=@Ada") == "@Ada"
    assert team.hired == [("Developer", "@Ada")]


def test_a_positional_after_a_keyword_is_refused(registry: CommandRegistry, team: FakeTeam) -> None:
    result = registry.dispatch("/hire_member name=@Ada Developer")
    assert result == (
        "/hire_member: positional argument 'Developer' follows keyword argument name=; give "
        "positional arguments first. Usage: /hire_member <role> [name=<name>]"
    )
    assert team.hired == []  # never guessed into the next free parameter


def test_two_values_for_one_parameter_are_refused(
    registry: CommandRegistry, team: FakeTeam
) -> None:
    result = registry.dispatch("/hire_member Developer role=QA")
    assert result is not None
    assert result.startswith("/hire_member: argument 'role' given twice: by position and as role=")
    assert team.hired == []


def test_an_empty_text_value_is_an_empty_string(registry: CommandRegistry, team: FakeTeam) -> None:
    registry.dispatch('/hire_member Developer name=""')
    registry.dispatch("/hire_member Developer name=none")
    assert team.hired == [("Developer", ""), ("Developer", None)]


def test_a_positional_value_containing_equals_stays_intact(registry: CommandRegistry) -> None:
    assert registry.dispatch("/search_planning a=b") == "query='a=b' limit=10"
    assert registry.dispatch("/search_planning x==y limit=3") == "query='x==y' limit=3"


def test_quotes_group_words(registry: CommandRegistry, team: FakeTeam) -> None:
    registry.dispatch("""/hire_member "Senior Developer" name='@Ada Lovelace'""")
    assert team.hired == [("Senior Developer", "@Ada Lovelace")]


def test_surrounding_whitespace_and_newlines_are_tolerated(
    registry: CommandRegistry, team: FakeTeam
) -> None:
    registry.dispatch("  /hire_member\n  Developer  ")
    assert team.hired == [("Developer", None)]


def test_star_args_collect_leftover_positionals(registry: CommandRegistry) -> None:
    assert registry.callable("gather")("a") == ("a", ())
    assert registry.callable("gather")("a", 1) == ("a", (1,))
    assert registry.dispatch("/gather a 1 2 3") == "a\n1, 2, 3"
    assert registry.dispatch("/gather a k=v") == "/gather: argument 'rest': " + (
        "Input should be a valid integer, unable to parse string as an integer (got 'k=v')."
        " Usage: /gather <first> [<rest>...]"
    )


def test_keyword_only_parameters_need_their_keyword(registry: CommandRegistry) -> None:
    assert registry.dispatch("/keyword_only target=prod dry_run=yes") == "prod dry_run=True"
    result = registry.dispatch("/keyword_only prod")
    assert result is not None
    assert "missing argument 'target' (as target=...)" in result


def test_positional_only_parameters_take_equals_as_a_value(registry: CommandRegistry) -> None:
    assert registry.dispatch("/positional_only source=x copies=2") == "source=x x2"


def test_a_command_returning_none_says_nothing(registry: CommandRegistry, team: FakeTeam) -> None:
    assert registry.dispatch("/fire_member @Ada") is None
    assert team.fired == ["@Ada"]


def test_private_commands_are_dispatchable_and_callable(registry: CommandRegistry) -> None:
    assert registry.has("_expand_media_refs")
    assert registry.callable("_expand_media_refs")("hi") == "HI"
    assert registry.dispatch("/_expand_media_refs hi") == "HI"


# -- dispatch: not a command -----------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "/unknown thing",
        "hello /hire_member Developer",
        "hire_member Developer",
        "/",
        "/ hire_member",
        "",
        "/hire_member.",
        "/Hire_member Developer",
        "/usr/bin/env is where it's at",  # unknown name: the stray quote is not our business
    ],
)
def test_unrecognised_text_raises(registry: CommandRegistry, text: str) -> None:
    with pytest.raises(CommandNotRecognized) as caught:
        registry.dispatch(text)
    assert caught.value.text == text


def test_command_not_recognized_names_the_command(registry: CommandRegistry) -> None:
    with pytest.raises(CommandNotRecognized) as caught:
        registry.dispatch("/unknown thing")
    assert caught.value.name == "unknown"
    assert str(caught.value) == "no command named 'unknown'"
    assert isinstance(caught.value, LookupError)


# -- dispatch: failures after identification come back as text ------------------------------


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("/hire_member", "missing argument 'role'"),
        ("/hire_member Developer @Ada extra", "too many arguments: extra"),
        ("/hire_member Developer @Ada nme=@Bo", "unknown keyword argument 'nme'"),
        ("/hire_member Developer name=@A name=@B", "argument 'name' given more than once"),
        ("/hire_member 'Developer", "cannot read the arguments (No closing quotation)"),
        ("/search_planning q limit=many", "argument 'limit': Input should be a valid integer"),
        ("/typed flag=maybe", "argument 'flag': Input should be a valid boolean"),
        ("/typed mode=medium", "argument 'mode': Input should be 'fast' or 'slow'"),
        ("/typed positive=0", "argument 'positive': Input should be greater than or equal to 1"),
        ("/typed point='{\"y\": 1}'", "argument 'point'"),
    ],
)
def test_argument_problems_are_returned_naming_command_and_problem(
    registry: CommandRegistry, text: str, problem: str
) -> None:
    result = registry.dispatch(text)

    name = text.split(maxsplit=1)[0]
    assert result is not None
    assert result.startswith(f"{name}: ")
    assert problem in result
    assert f"Usage: {name}" in result


def test_missing_arguments_are_all_named() -> None:
    registry = CommandRegistry()

    def move(source: str, target: str) -> None:
        """Move something."""

    registry.register(move)
    assert registry.dispatch("/move") == (
        "/move: missing arguments 'source', 'target'. Usage: /move <source> <target>"
    )


def test_a_raising_command_is_reported_and_logged_in_one_line(
    registry: CommandRegistry, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.DEBUG, logger="retinue.tools.commands"):
        result = registry.dispatch("/explode 'disk full'")

    assert result == "/explode failed: RuntimeError: disk full"
    (line,) = [r for r in caplog.records if r.levelno >= logging.INFO]
    assert line.levelno == logging.WARNING and line.exc_info is None
    assert line.getMessage() == "command /explode failed: RuntimeError: disk full"
    assert any(r.exc_info for r in caplog.records if r.levelno == logging.DEBUG)


def test_a_result_that_cannot_be_rendered_is_reported() -> None:
    class Awkward:
        def __str__(self) -> str:
            raise ValueError("no words")

    registry = CommandRegistry()
    registry.register(Awkward, name="awkward")

    result = registry.dispatch("/awkward")
    assert result is not None
    assert result.startswith("/awkward: the result could not be shown")


# -- coercion --------------------------------------------------------------------------------


def _typed(arguments: str) -> dict[str, Any]:
    """Dispatch `/typed_spy ARGUMENTS` and return the keyword arguments the command received.

    The spy wears `typed`'s signature (`functools.wraps` sets `__wrapped__`, which
    `inspect.signature` follows), so the registry coerces exactly as it would for `typed`.
    """
    received: dict[str, Any] = {}

    @functools.wraps(typed)
    def spy(**kwargs: Any) -> None:
        received.update(kwargs)

    registry = CommandRegistry()
    registry.register(spy, name="typed_spy")
    result = registry.dispatch(f"/typed_spy {arguments}")
    assert result is None, result
    return received


@pytest.mark.parametrize(
    ("token", "expected"),
    [
        ("true", True),
        ("false", False),
        ("yes", True),
        ("no", False),
        ("1", True),
        ("0", False),
        ("True", True),
        ("NO", False),
    ],
)
def test_booleans(token: str, expected: bool) -> None:
    assert _typed(f"flag={token}") == {"flag": expected}


def test_numbers_literals_enums_and_dates() -> None:
    assert _typed("count=3 ratio=2.5 mode=slow level=2 colour=blue day=2024-05-01") == {
        "count": 3,
        "ratio": 2.5,
        "mode": "slow",
        "level": 2,
        "colour": Colour.BLUE,
        "day": datetime.date(2024, 5, 1),
    }


@pytest.mark.parametrize("token", ["none", "None", "NULL"])
def test_optional_parameters_take_none_words(token: str) -> None:
    assert _typed(f"note={token} limit={token}") == {"note": None, "limit": None}


def test_an_empty_value_is_empty_where_that_fits_and_none_elsewhere() -> None:
    assert _typed("note='' limit='' tags=") == {"note": "", "limit": None, "tags": []}


def test_optional_parameters_take_values() -> None:
    assert _typed("note=hello limit=5") == {"note": "hello", "limit": 5}


def test_lists_take_commas_repeats_and_json() -> None:
    assert _typed("tags=a,b") == {"tags": ["a", "b"]}
    assert _typed("tags=a tags=b,c") == {"tags": ["a", "b", "c"]}
    assert _typed("""tags='["x,y", "z"]'""") == {"tags": ["x,y", "z"]}
    assert _typed("tags=") == {"tags": []}  # empty is the empty list; `tags=none` is None
    assert _typed("tags=none") == {"tags": None}


def test_sets_and_tuples_are_collections_too() -> None:
    assert _typed("ids=3,1,3 span=4,5") == {"ids": {1, 3}, "span": (4, 5)}


def test_models_are_given_as_json() -> None:
    assert _typed("""point='{"x": 1, "y": 2}'""") == {"point": Point(x=1, y=2)}


def test_a_list_without_optional_takes_an_empty_value_as_an_empty_list() -> None:
    registry = CommandRegistry()

    def label(names: Sequence[str]) -> str:
        """Join names."""
        return "|".join(names)

    registry.register(label)
    assert registry.dispatch("/label a,b") == "a|b"
    assert registry.dispatch("/label names=") == ""
    assert registry.dispatch("/label 'a, b'") == "a|b"


def test_an_unresolvable_annotation_passes_text_through(registry: CommandRegistry) -> None:
    assert registry.callable("unresolved")(1, "y") == (1, "y")
    assert registry.dispatch("/unresolved 12.5") == "12.5\nx"


def test_untyped_and_any_parameters_receive_the_text(registry: CommandRegistry) -> None:
    registry.register(lambda value: value, name="raw")

    assert registry.dispatch("/raw 12") == "12"
    assert registry.dispatch("/echo a=b") == "a=b"


def test_the_text_surface_and_the_python_surface_agree(
    registry: CommandRegistry, team: FakeTeam
) -> None:
    native = registry.callable("hire_member")("Developer", name="@Ada")
    text = registry.dispatch("/hire_member Developer name=@Ada")

    assert text == render_result(native)


# -- rendering -------------------------------------------------------------------------------


def test_an_address_renders_as_its_name(registry: CommandRegistry) -> None:
    assert registry.dispatch("/hire_member Developer") == "@Developer1"


def test_a_list_renders_one_item_per_line(registry: CommandRegistry) -> None:
    assert registry.dispatch("/team_members") == "@Ada\n@Bo"


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("plain", "plain"),
        (42, "42"),
        (True, "True"),
        (Colour.BLUE, "blue"),
        ([], "(none)"),
        ({}, "(none)"),
        ({"b", "a"}, "a\nb"),
        ((1, "two"), "1\ntwo"),
        (Point(x=1), "x: 1\ny: 0"),
        (Pair(left="l", right=2), "left: l\nright: 2"),
        ({"role": "Developer", "count": 2}, "role: Developer\ncount: 2"),
        (
            [
                Task(id=1, title="write", owner=ActorAddress(name="@Ada", role="Dev")),
                Task(id=2, title="test"),
            ],
            "id: 1, title: write, owner: @Ada\nid: 2, title: test, owner: -",
        ),
        ({"team": ["@Ada", "@Bo"], "lead": None}, "team: @Ada, @Bo\nlead: -"),
        (b"raw", "b'raw'"),
    ],
)
def test_render_result(value: Any, text: str) -> None:
    assert render_result(value) == text


# -- descriptors -----------------------------------------------------------------------------


def test_descriptors_announce_public_commands_in_registration_order(
    registry: CommandRegistry,
) -> None:
    names = [descriptor.name for descriptor in registry.descriptors()]

    assert names[:4] == ["hire_member", "fire_member", "team_members", "search_planning"]
    assert "_expand_media_refs" not in names


def test_a_descriptor_carries_description_schema_owner_and_usage(
    registry: CommandRegistry,
) -> None:
    hire = {d.name: d for d in registry.descriptors()}["hire_member"]

    assert hire == CommandDescriptor(
        name="hire_member",
        description="Hire a member by role.",
        parameters={
            "type": "object",
            "properties": {
                "role": {"type": "string"},
                "name": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
            },
            "required": ["role"],
        },
        owner="team",
        usage="/hire_member <role> [name=<name>]",
    )


def test_descriptor_schemas_cover_literals_models_and_star_args(
    registry: CommandRegistry,
) -> None:
    by_name = {d.name: d for d in registry.descriptors()}
    typed_schema = by_name["typed"].parameters

    assert typed_schema["properties"]["mode"] == {
        "enum": ["fast", "slow"],
        "type": "string",
        "default": "fast",
    }
    assert typed_schema["properties"]["colour"]["default"] == "red"
    assert "Point" in typed_schema["$defs"]
    assert "required" not in typed_schema
    assert by_name["gather"].parameters["properties"]["rest"] == {
        "type": "array",
        "items": {"type": "integer"},
    }
    assert by_name["gather"].usage == "/gather <first> [<rest>...]"
    assert by_name["keyword_only"].usage == "/keyword_only target=<target> [dry_run=<dry_run>]"
    assert by_name["positional_only"].usage == "/positional_only <source> [copies=<copies>]"
    assert by_name["unresolved"].parameters["properties"]["amount"] == {}
    assert by_name["echo"].owner is None


def test_descriptors_are_serializable(registry: CommandRegistry) -> None:
    descriptors = registry.descriptors()
    payload = json.dumps([d.model_dump(mode="json") for d in descriptors])

    restored = [CommandDescriptor.model_validate(item) for item in json.loads(payload)]
    assert restored == descriptors


def test_a_command_without_docstring_has_an_empty_description() -> None:
    registry = CommandRegistry()
    registry.register(lambda: None, name="quiet")

    assert registry.descriptors()[0].description == ""
