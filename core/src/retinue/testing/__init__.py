"""Test support for users and plugin authors: scripted models and a real team harness.

- `scripted`: helpers a `FunctionModel` function uses to read the conversation and answer.
- `directives`: `follow`, a ready model that obeys `call`/`send` lines in its message
  (`call_directive`, `send_directive` and `script` write them).
- `cards`: `scripted_card`, a role on a scripted model in one line.
- `team`: `TeamHarness`, a running team to drive and read (with the `retinue_team` fixture).
- `histories`: what each agent's model was shown, read back from the events it published.
- `host`: `StubHost`, an agent with nothing behind it, to bind a card to in a unit test.
- `override`: `override_model`, a model object of the test's for the agents built meanwhile.
- `provided`: `provided_by`, what a plugin's hook module provides, as discovery sees it.
- `checks`: `check_plugin_card`, a plugin's card as discovery, a team file and an agent see
  it, checked in one call; `loads_model_stack`, whether a module imports pydantic-ai.
- `context`: `context_updates` and `context_section`, the context updates a model was shown
  and one card's section of one (`TeamHarness.context_updates` reads an agent's).
- `embedding`: `hashing_embedder`, a deterministic offline text embedder for search tests.
- `connections`: `half_sent` connections a test leaves open, and `closed_within`, when the
  server closed them.
- `replays`: `replay_team` (a recorded team run again offline, answered by its record),
  `export_cassette` and `play_cassette` (a team file run against a cassette), each ending
  in a `ReplayReport`.
- `plugin`: the pytest plugin, opt-in: `pytest_plugins = ["retinue.testing.plugin"]`.
"""

from retinue.testing.cards import PingTool, scripted_card
from retinue.testing.checks import check_plugin_card, loads_model_stack
from retinue.testing.connections import closed_within, half_sent, lines_until
from retinue.testing.context import context_section, context_updates
from retinue.testing.directives import (
    FOLLOW,
    Directives,
    call_directive,
    follow,
    read_directives,
    script,
    send_directive,
)
from retinue.testing.embedding import HashingEmbedder, hashing_embedder
from retinue.testing.host import StubHost
from retinue.testing.override import ModelLike, override_model
from retinue.testing.provided import Provided, provided_by
from retinue.testing.replays import ReplayReport, export_cassette, play_cassette, replay_team
from retinue.testing.scripted import (
    Incoming,
    agent_name,
    call_tool,
    incoming,
    incoming_messages,
    last_prompt,
    output,
    received,
    run_messages,
    send,
    text,
    tool_returns,
    user_texts,
)
from retinue.testing.team import Recorder, TeamHarness

__all__ = [
    "FOLLOW",
    "Directives",
    "HashingEmbedder",
    "Incoming",
    "ModelLike",
    "PingTool",
    "Provided",
    "Recorder",
    "ReplayReport",
    "StubHost",
    "TeamHarness",
    "agent_name",
    "call_directive",
    "call_tool",
    "check_plugin_card",
    "closed_within",
    "context_section",
    "context_updates",
    "export_cassette",
    "follow",
    "half_sent",
    "hashing_embedder",
    "incoming",
    "incoming_messages",
    "last_prompt",
    "lines_until",
    "loads_model_stack",
    "output",
    "override_model",
    "play_cassette",
    "provided_by",
    "read_directives",
    "received",
    "replay_team",
    "run_messages",
    "script",
    "scripted_card",
    "send",
    "send_directive",
    "text",
    "tool_returns",
    "user_texts",
]
