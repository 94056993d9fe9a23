"""The runtime seam: `ActorSystem` implements `Runtime`, and agents and cards use nothing else."""

from __future__ import annotations

import ast
import inspect
import typing
from pathlib import Path

import pytest
import retinue.actors
from retinue.actors.actor import Actor
from retinue.actors.runtime_api import Runtime
from retinue.actors.system import ActorSystem
from retinue.team.local_team import OrchestratorTeam
from retinue.tools.host import ToolHost

ROOT = Path(__file__).resolve().parents[2]
KERNEL = ROOT / "core" / "src" / "retinue"
#: Code that must reach the runtime only through `Runtime`: agents, cards, plugins. Not
#: retinue-ray: it implements the runtime's `Cluster` seam, below the line.
RUNTIMES = {"ray"}
SEAM_USERS = [
    KERNEL / "agent",
    KERNEL / "tools",
    KERNEL / "plugins",
    *(p for p in ROOT.glob("plugins/*/src") if p.parent.name not in RUNTIMES),
]
#: Modules of the pykka implementation that code above the seam must not import.
IMPLEMENTATION = {"retinue.actors.system", "retinue.actors.runtime"}


def _members() -> set[str]:
    names = {n for n in vars(Runtime) if not n.startswith("_")}
    return names | set(Runtime.__annotations__)


def test_the_actor_system_is_a_runtime() -> None:
    system = ActorSystem()
    try:
        assert isinstance(system, Runtime)
        assert Runtime in ActorSystem.__mro__  # declared, so mypy checks it member by member
    finally:
        system.shutdown(1.0)


@pytest.mark.parametrize("name", sorted(_members()))
def test_each_runtime_member_is_implemented_with_its_signature(name: str) -> None:
    declared = inspect.getattr_static(Runtime, name, None)
    # Its own definition: a stub inherited from the protocol would only look implemented.
    implemented = vars(ActorSystem).get(name)
    if declared is None:  # a data member: set on each instance
        system = ActorSystem()
        try:
            assert hasattr(system, name), f"ActorSystem has no {name}"
        finally:
            system.shutdown(1.0)
        return
    if isinstance(declared, property):
        assert isinstance(implemented, property), f"ActorSystem.{name} is not a property"
        return
    assert callable(implemented), f"ActorSystem has no method {name}"
    assert inspect.signature(implemented) == inspect.signature(declared), name


def test_agents_and_cards_see_the_runtime_as_the_protocol() -> None:
    # The modules import these names for type checking only; resolve them here.
    names = {**vars(retinue.actors), "Runtime": Runtime}
    host = typing.get_type_hints(ToolHost.system.fget, localns=names)  # type: ignore[attr-defined]
    assert host["return"] is Runtime
    actor = typing.get_type_hints(Actor.system.fget, localns=names)  # type: ignore[attr-defined]
    assert actor["return"] is Runtime
    team = typing.get_type_hints(OrchestratorTeam.__init__, localns=names)
    assert team["system"] is Runtime


def _sources() -> list[Path]:
    return sorted(p for top in SEAM_USERS for p in top.rglob("*.py"))


def test_the_scanned_code_is_there() -> None:
    files = {p.relative_to(ROOT).as_posix() for p in _sources()}
    assert "core/src/retinue/agent/agent.py" in files
    assert "core/src/retinue/tools/host.py" in files
    assert any(f.startswith("plugins/team/src/") for f in files)


@pytest.mark.parametrize("path", _sources(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_code_above_the_seam_never_reaches_past_it(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    members = _members()
    problems = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            imported = {node.module} | {f"{node.module}.{a.name}" for a in node.names}
            problems += [f"line {node.lineno} imports {m}" for m in imported & IMPLEMENTATION]
        elif isinstance(node, ast.Import):
            problems += [
                f"line {node.lineno} imports {a.name}"
                for a in node.names
                if a.name in IMPLEMENTATION
            ]
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Attribute)
            and node.value.attr == "system"
            and node.attr not in members
        ):
            problems.append(f"line {node.lineno} uses system.{node.attr}, not in Runtime")
    assert not problems, f"{path.relative_to(ROOT)}: " + "; ".join(problems)
