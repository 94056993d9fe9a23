"""Each intent's reply protocol reaches the model's prompt, before the fenced content."""

from __future__ import annotations

import pytest
from agent_cards import card, prompts
from retinue import REPLY_PROTOCOLS, reply_protocol
from retinue.testing import TeamHarness


@pytest.mark.parametrize("intent", sorted(REPLY_PROTOCOLS))
def test_protocol_line_precedes_raw_content(retinue_team: TeamHarness, intent: str) -> None:
    listener = retinue_team.add(card("Listener", "silent"))
    retinue_team.say(listener, f"raw {intent} content", intent=intent)
    retinue_team.wait_idle()
    (prompt,) = prompts(retinue_team, "@Listener")
    header = reply_protocol(intent, "@Human")
    # A context-update block may be folded in front; the protocol sits right before the
    # content, which the kernel fences; the line names the real sender and intent.
    assert prompt.endswith(f"{header}\n<message>\nraw {intent} content\n</message>")


def test_protocol_lines_speak_of_mechanics_not_delegation() -> None:
    for line in REPLY_PROTOCOLS.values():
        lowered = line.lower()
        assert "delegate" not in lowered and "yourself" not in lowered


def test_a_silent_turn_still_runs_and_sends_nothing(retinue_team: TeamHarness) -> None:
    listener = retinue_team.add(card("Listener", "silent"))
    retinue_team.say(listener, "just so you know", intent="notification")
    retinue_team.wait_idle()
    assert len(prompts(retinue_team, "@Listener")) == 1
    assert retinue_team.transcript() == [
        ("@Human", "@Listener", "notification", "just so you know")
    ]
