"""`retinue check TEAM.toml`: validate a team file without running it."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Mapping

    from retinue.llm.config import ModelConfig
    from retinue.teamfile import TeamFile
    from retinue.tools.card import ToolCard


def register(commands: Any) -> None:
    """Add the `check` subcommand to the `retinue` command's subparsers."""
    parser = commands.add_parser(
        "check",
        help="validate a team file without running it",
        description="Validate a team file: its TOML, every key, every model string, every "
        "card named (against the installed ones). It imports the Python code the file names "
        "(scripted models, agent classes), from the installed packages or else the file's "
        "folder, and says where each module came from. Prints one line per problem and exits "
        "with status 1 when there is one.",
    )
    parser.add_argument("team_file", metavar="TEAM.toml", help="the team file to check")
    parser.add_argument(
        "--model", metavar="STRING", help="check it as `retinue run --model STRING` would run it"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from retinue.llm.config import ModelConfig
    from retinue.llm.errors import ConfigError
    from retinue.teamfile import TeamFileError, load_team_file
    from retinue.validation import MAX_LINE_CHARS, shorten

    model: ModelConfig | None = None
    try:
        spec = load_team_file(args.team_file)
    except TeamFileError as exc:
        print(exc, file=sys.stderr)
        return 1
    if args.model is not None:
        try:
            model = ModelConfig.from_string(args.model)
        except ConfigError as exc:
            print(shorten(f"--model: {exc}", MAX_LINE_CHARS), file=sys.stderr)
            return 1
    for line in summary(spec, model):
        print(line)
    return 0


def summary(spec: TeamFile, model: ModelConfig | None = None) -> list[str]:
    """What a person checks at a glance: the team, each role's model and cards, the keys."""
    from retinue.agent.approval_policy import describe_rule
    from retinue.llm.models import key_env
    from retinue.plugins import collect_card_classes, default_card_classes, get_plugin_manager
    from retinue.validation import MAX_LINE_CHARS, shorten, shown

    entry = spec.entry_role
    pm = get_plugin_manager()
    defaults = [card.name for card in default_card_classes(pm)]
    installed = collect_card_classes(pm)
    lines = [
        f"ok: team {shown(spec.team.name)}, {len(spec.roles)} role(s); "
        f"{spec.team.person_name} talks to {spec.entry_card.config.name} ({entry})",
        f"  every role also gets the default cards: {', '.join(defaults) or 'none installed'}",
    ]
    missing: dict[str, list[str]] = {}
    for role, card in zip(spec.roles, spec.cards(model), strict=True):
        config = card.config
        model_cfg = getattr(config, "model_cfg", None)
        tools = [t if isinstance(t, str) else t.name for t in getattr(config, "tools", [])]
        marks = [role]
        marks += ["entry"] if role == entry else []
        marks += ["started"] if role in spec.team.start else []
        playing = shorten(model_cfg.as_string()) if model_cfg is not None else "no model"
        line = f"  {config.name} ({', '.join(marks)}): {playing}"
        line += f"; cards: {', '.join(tools)}" if tools else ""
        line += f"; routes to: {', '.join(card.routes_to)}" if card.routes_to else ""
        approve = getattr(config, "approve", [])
        rules = ", ".join(describe_rule(rule) for rule in approve)
        line += f"; asks the person before: {rules}" if approve else ""
        lines.append(line)
        env = key_env(model_cfg) if model_cfg is not None else None
        if env is not None and not os.environ.get(env):
            missing.setdefault(env, []).append(role)
        lines += [f"note: {config.name}: {note}" for note in _card_notes(config, installed)]
    for env, roles in missing.items():
        lines.append(f"note: {env} is not set; {', '.join(roles)} cannot run until it is")
    imported = _imported_code(spec)
    if imported:
        lines.append(f"note: imported the code it names: {', '.join(imported)}")
    return [shorten(line, MAX_LINE_CHARS) for line in lines]


def _card_notes(config: object, installed: Mapping[str, type[ToolCard]]) -> list[str]:
    """What each card of a role says of itself here (a tool it cannot offer, and why)."""
    notes: list[str] = []
    for item in getattr(config, "tools", []):
        card = installed[item]() if isinstance(item, str) and item in installed else item
        if not isinstance(card, str):
            notes += [f"{card.name}: {note}" for note in card.operator_notes()]
    return notes


def _imported_code(spec: TeamFile) -> list[str]:
    """`module (where it was found)` for each module of code the file names, not the kernel's."""
    modules: set[str] = set()
    for card in spec.cards():
        cls = card.get_agent_class()
        modules.add(cls.__module__)
        model_cfg = getattr(card.config, "model_cfg", None)
        if model_cfg is not None and model_cfg.provider == "function":
            for path in (model_cfg.model, model_cfg.stream_function):
                if path:
                    modules.add(path.partition(":")[0])
    shown = []
    for name in sorted(modules):
        if name == "retinue" or name.startswith("retinue."):
            continue
        found = getattr(sys.modules.get(name), "__file__", None)
        shown.append(f"{name} ({_near(found)})" if found else name)
    return shown


def _near(file: str) -> str:
    """`file` relative to the working directory when it is inside it."""
    try:
        relative = os.path.relpath(file)
    except ValueError:  # another drive (Windows)
        return file
    return file if relative.startswith("..") else relative
