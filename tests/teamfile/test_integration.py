"""The example team files, run for real: each role on a real provider's model.

Marked `integration` (deselected by default: `pytest -m integration` runs them) and skipped
without the provider's API key or SDK. The model can be chosen with
RETINUE_IT_OPENAI_MODEL / RETINUE_IT_ANTHROPIC_MODEL (a model string's model part).
What a real model says varies, so these check what any working model does: an answer reaches
the person, and a request the model cannot mistake is answered as asked.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from pathlib import Path
from typing import ClassVar

import pytest
from retinue import ActorAddress, AgentMessage, HumanProxy, ModelConfig
from retinue.teamfile import load_team_file

from tests.teamfile.test_round_trip import EXAMPLES, _missing_cards

pytestmark = pytest.mark.integration

PROVIDERS = {
    "openai": ("OPENAI_API_KEY", "openai", "RETINUE_IT_OPENAI_MODEL", "gpt-4.1-mini"),
    "anthropic": (
        "ANTHROPIC_API_KEY",
        "anthropic",
        "RETINUE_IT_ANTHROPIC_MODEL",
        "claude-haiku-4-5",
    ),
}


def real_model(provider: str) -> ModelConfig:
    """The provider's model for these tests, or a skip saying what is missing."""
    key, sdk, choice, default = PROVIDERS[provider]
    if not os.environ.get(key):
        pytest.skip(f"{key} is not set")
    if importlib.util.find_spec(sdk) is None:
        pytest.skip(f"the {sdk} SDK is not installed: pip install 'retinue[{sdk}]'")
    return ModelConfig.from_string(f"{provider}:{os.environ.get(choice) or default}")


class Seat(HumanProxy):
    received: ClassVar[list[AgentMessage]] = []
    arrived: ClassVar[threading.Event] = threading.Event()

    def on_agent_message(self, message: AgentMessage, sender: ActorAddress | None) -> None:
        Seat.received.append(message)
        Seat.arrived.set()


@pytest.fixture
def seat(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> type[Seat]:
    monkeypatch.chdir(tmp_path)
    Seat.received = []
    Seat.arrived = threading.Event()
    return Seat


@pytest.mark.parametrize("provider", list(PROVIDERS))
def test_solo_answers_for_real(provider: str, seat: type[Seat]) -> None:
    model = real_model(provider)
    spec = load_team_file(EXAMPLES / "solo.toml")
    with spec.start(model=model, human_class=seat) as running:
        running.send("Reply with exactly the word PONG and nothing else.")
        running.wait_idle(180)
    assert seat.received, "no answer reached the person"
    assert "pong" in seat.received[-1].content.casefold()


@pytest.mark.parametrize("provider", list(PROVIDERS))
def test_the_product_team_delivers_for_real(provider: str, seat: type[Seat]) -> None:
    model = real_model(provider)
    path = EXAMPLES / "product_team.toml"
    if _missing_cards(path) or importlib.util.find_spec("retinue_team") is None:
        pytest.skip("needs retinue-team, retinue-planning and retinue-workspace")
    spec = load_team_file(path)
    with spec.start(model=model, human_class=seat) as running:
        running.send(
            "Write a Python function is_leap(year) in leap.py, have it reviewed, then report "
            "to me. Do not ask me questions."
        )
        assert seat.arrived.wait(600), "no answer reached the person in 10 minutes"
        running.wait_idle(600)
        members = [m.name for m in running.members()]
    assert "@Developer" in members  # the manager hired by role, as its prompt says
    assert any(m.type == "response" for m in seat.received)
