"""Dotted paths to classes: what `qualified_name` writes reads back; a miss is one line."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest
from retinue import ActorClassError, AgentConfig, BaseConfig, BaseState, ToolCard
from retinue.actors.actor import Actor
from retinue.actors.loader import import_object, qualified_name
from retinue.actors.system import ActorSystem


class Outer:
    """A namespace holding classes, as a module of cards or agents sometimes is."""

    class InnerTool(ToolCard):
        name: ClassVar[str] = "inner"

        limit: int = 1

    class InnerActor(Actor[BaseConfig, BaseState]):
        pass


def test_a_nested_class_reads_back_from_its_qualified_name() -> None:
    path = qualified_name(Outer.InnerTool)

    assert path == f"{__name__}.Outer.InnerTool"
    assert import_object(path) is Outer.InnerTool
    assert import_object(f"{__name__}:Outer.InnerTool") is Outer.InnerTool


def test_a_config_with_a_nested_card_class_survives_a_round_trip() -> None:
    config = AgentConfig(name="@Dev", role="Developer", tools=[Outer.InnerTool(limit=3)])

    again = AgentConfig.model_validate_json(config.model_dump_json())

    assert again == config
    assert type(again.tools[0]) is Outer.InnerTool


def test_an_actor_class_nested_in_a_class_starts_by_its_path() -> None:
    system = ActorSystem()
    try:
        address = system.createActor(qualified_name(Outer.InnerActor))
        assert address.name == "@InnerActor"
    finally:
        system.shutdown(5)


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Path]:
    sys.path.insert(0, str(tmp_path))
    importlib.invalidate_caches()
    try:
        yield tmp_path
    finally:
        sys.path.remove(str(tmp_path))
        for name in [n for n in sys.modules if n.split(".")[0] == "loader_fixture"]:
            del sys.modules[name]


def test_a_module_on_the_path_that_fails_to_import_is_named_with_its_own_error(
    site: Path,
) -> None:
    package = site / "loader_fixture"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "agents.py").write_text("import a_dependency_nobody_installed\n")

    with pytest.raises(ActorClassError) as caught:
        import_object("loader_fixture.agents.Coder")

    message = str(caught.value)
    assert message == (
        "cannot import 'loader_fixture.agents.Coder': "
        "No module named 'a_dependency_nobody_installed'"
    )


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("no_such_package.module.Agent", "No module named 'no_such_package'"),
        (f"{__name__}.Outer.Missing", "has no attribute 'Missing'"),
        ("not a path", "expected 'package.module.Name'"),
        ("", "expected 'package.module.Name'"),
    ],
)
def test_a_path_that_does_not_resolve_is_one_line(path: str, expected: str) -> None:
    with pytest.raises(ActorClassError) as caught:
        import_object(path)

    message = str(caught.value)
    assert message.startswith(f"cannot import {path!r}: ")
    assert expected in message
    assert "\n" not in message


def test_what_a_path_names_is_checked_by_its_user() -> None:
    assert import_object("collections.OrderedDict").__name__ == "OrderedDict"
    value: Any = import_object("retinue.actors.loader:import_object")
    assert value is import_object
