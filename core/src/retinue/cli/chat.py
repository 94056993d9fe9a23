"""`retinue chat`: one agent and the person, no team file (like `llm chat`)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from typing import Any

from retinue.cli.options import add_session_arguments

MODEL_ENV = "RETINUE_MODEL"

DESCRIPTION = f"""\
Chat with one agent in the terminal, on the same console as `retinue run`.

The model is --model, else the {MODEL_ENV} environment variable. A real model needs its
provider's key (OPENAI_API_KEY, ANTHROPIC_API_KEY); offline, use a scripted model:
--model function:retinue.cli.demo_models:echo answers every message by quoting it, and
--model test is pydantic-ai's TestModel (it calls every tool and answers with made-up data).

The agent has the installed default cards; --tool CARD gives it another card's tools, and
--approve CARD.TOOL makes those calls wait for your /approve (or /deny ID REASON).

Every chat is recorded (see --store); -c/--continue picks the last recorded session up where
it stopped, a chat or a `retinue run`, on its own models (`-c TEAM_ID` names another one).
"""

PROMPT = (
    "You are {name}, an assistant in a chat with {person}. Answer each of their messages "
    "with one response to {person}: clear, direct and no longer than it needs to be."
)


def register(commands: Any) -> None:
    """Add `chat` to the command's subcommands."""
    parser: argparse.ArgumentParser = commands.add_parser(
        "chat",
        help="chat with one agent, no team file needed",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--model",
        metavar="STRING",
        help=f"the model (default: ${MODEL_ENV}): openai:gpt-4.1, anthropic:claude-sonnet-4-5, "
        "ollama:llama3.2, openai-chat:NAME@URL, function:package.module:fn, test",
    )
    parser.add_argument(
        "-s", "--system", metavar="PROMPT", help="the agent's instructions instead of the default"
    )
    parser.add_argument(
        "--name", default="Assistant", help="the agent's name and role (default: Assistant)"
    )
    parser.add_argument("--person", default="Human", help="your name in the chat (default: Human)")
    parser.add_argument(
        "--tool",
        dest="tools",
        action="append",
        default=[],
        metavar="CARD",
        help="give the agent an installed card's tools (repeatable): --tool workspace",
    )
    parser.add_argument(
        "--approve",
        action="append",
        default=[],
        metavar="CARD.TOOL",
        help="tool calls that wait for your /approve (repeatable): --approve 'workspace.write*'",
    )
    parser.add_argument(
        "-c",
        "--continue",
        dest="team_id",
        nargs="?",
        const="",  # `-c` alone: the last recorded session
        metavar="TEAM_ID",
        help="go on with the last recorded session, or the team TEAM_ID (a prefix will do)",
    )
    add_session_arguments(parser)
    parser.set_defaults(run=chat_command)


def chat_command(args: argparse.Namespace) -> int:
    from retinue.cli import launch
    from retinue.cli.drive import drive

    if args.team_id is not None:
        return _continue(args)
    text = args.model or os.environ.get(MODEL_ENV)
    if not text:
        error = launch.LaunchError(
            [
                f"no model: pass --model STRING or set {MODEL_ENV} (for example openai:gpt-4.1; "
                "offline: function:retinue.cli.demo_models:echo)"
            ]
        )
        return launch.report(error, "chat")
    try:
        model = launch.parse_model(text, "--model" if args.model else MODEL_ENV)
        spec = chat_team(args.name, args.person, args.system, args.tools, args.approve)
    except launch.LaunchError as error:
        return launch.report(error, "chat")
    return drive(spec, model, args, "chat")


def _continue(args: argparse.Namespace) -> int:
    """`-c`: the recorded team resumed (`retinue resume`), the person's seat at a terminal."""
    from retinue.cli import launch
    from retinue.cli.resume import run_resume

    options = [("--model", args.model), ("-s", args.system)]
    options += [("--tool", args.tools), ("--approve", args.approve)]
    given = [option for option, value in options if value]
    if given:
        error = launch.LaunchError(
            [f"{' and '.join(given)}: a continued session goes on as it was recorded"]
        )
        return launch.report(error, "chat")
    args.team_id = args.team_id or None
    args.message = []
    return run_resume(args, "chat")


def chat_team(
    name: str,
    person: str,
    system: str | None,
    tools: Sequence[str] = (),
    approve: Sequence[str] = (),
) -> Any:
    """The one-role team a chat runs (its model is given at start), with `tools` (card
    names) and the `approve` rules on them."""
    from pydantic import ValidationError

    from retinue.agent.agent import BaseAgent
    from retinue.agent.config import AgentConfig
    from retinue.cli import launch
    from retinue.llm.prompt import PromptTemplate
    from retinue.team.card import AgentCard
    from retinue.teamfile import TeamFile, TeamSettings
    from retinue.teamfile.schema import member_name

    _check_cards(tools, approve)
    role = name.strip().lstrip("@") or "Assistant"
    template = system or PROMPT.format(name=member_name(role), person=member_name(person))
    try:
        card = AgentCard(
            description="the person's chat partner",
            agent_class=BaseAgent,
            config=AgentConfig(
                name=member_name(role),
                role=role,
                prompt=PromptTemplate(template=template),
                tools=list(dict.fromkeys(tools)),
                approve=list(approve),
            ),
        )
        return TeamFile(team=TeamSettings(name="chat", person=person), roles={role: card})
    except (ValidationError, ValueError) as exc:
        raise launch.LaunchError([line for line in str(exc).splitlines() if line.strip()]) from None


def _check_cards(tools: Sequence[str], approve: Sequence[str]) -> None:
    """Each `--tool` an installed card, each `--approve` a rule on one: a line per problem."""
    if not tools and not approve:
        return
    from retinue.agent.approval_policy import parse_rule
    from retinue.cli import launch
    from retinue.plugins import PluginError, collect_card_classes, get_plugin_manager
    from retinue.teamfile.role_tables import unknown_card

    try:
        classes = collect_card_classes(get_plugin_manager())
    except PluginError as exc:
        raise launch.LaunchError([f"plugins: {exc}"]) from None
    problems = [f"--tool: {unknown_card(card, classes)}" for card in tools if card not in classes]
    for rule in approve:
        try:
            card = parse_rule(rule).card
        except ValueError as exc:
            problems.append(f"--approve: {exc}")
            continue
        if card not in classes:
            problems.append(f"--approve: rule {rule!r} names no installed card {card!r}")
    if problems:
        raise launch.LaunchError(problems)
