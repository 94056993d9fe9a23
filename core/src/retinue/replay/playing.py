"""Playing a script on a running team: lanes installed, the steps taken, the report made.

Every step after a message of the person's is taken once the team is idle, as a person at a
console would: a member started from outside, cards registered, the next message sent. A
member the team already has (hired meanwhile by one of its agents) is not started again.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from retinue.actors.address import ActorAddress
from retinue.actors.config import BaseConfig
from retinue.actors.messages import SentMessage
from retinue.actors.spawning import resolve_actor_class
from retinue.actors.system import ActorSystem
from retinue.agent.human_proxy import HumanProxy
from retinue.agent.messages import AgentMessage
from retinue.llm.model_overrides import ModelOverride, add_model_override, remove_model_override
from retinue.replay.compare import request_lines
from retinue.replay.lanes import Lane, LaneModel, StrayModel, Tally
from retinue.replay.report import Difference, ReplayReport
from retinue.replay.script import Answer, Register, ReplayError, Say, Script, Start, Step
from retinue.team.card import AgentCard
from retinue.team.subscriber import MessageLog


class Answers(MessageLog):
    """Collects what reached the person, in the order the orchestrator saw it."""

    @property
    def answers(self) -> list[Answer]:
        sent = [m.message for m in self.messages if isinstance(m, SentMessage)]
        return [
            Answer(message.sender.name if message.sender else "", message.content)
            for message in sent
            if isinstance(message, AgentMessage)
            and message.recipient
            and message.recipient.is_user_proxy
        ]


class Playback:
    """One replay of a script: its lanes, installed as model overrides while it plays."""

    def __init__(
        self,
        script: Script,
        *,
        lenient: bool,
        live_tools: bool,
        cards: Iterable[AgentCard] = (),
    ) -> None:
        self.script = script
        self.cards = {card.role: card for card in cards}
        self.tally = Tally(lenient=lenient, serve_tools=not live_tools)
        self.lanes = {
            agent: Lane(agent, turns, self.tally) for agent, turns in script.turns.items()
        }
        self.answers = Answers()

    @contextmanager
    def installed(self, team: str | None) -> Iterator[None]:
        """Agents built meanwhile (of `team`, or any) talk to their lanes; others to a model
        that notes each request as one the record does not have."""
        overrides: list[ModelOverride] = [add_model_override(StrayModel(self.tally), team=team)]
        for agent, lane in self.lanes.items():
            overrides.append(add_model_override(LaneModel(lane), agent=agent, team=team))
        try:
            yield
        finally:
            for override in overrides:
                remove_model_override(override)

    def play(
        self, system: ActorSystem, orchestrator: ActorAddress, steps: Iterable[Step], timeout: float
    ) -> None:
        """Take each step once the team is idle after the person's last message (starts and
        registrations are asks: done when they return); stop at a strict replay's first
        difference."""
        team: Any = system.proxy_ask(orchestrator)
        busy = False
        said = 0
        for step in steps:
            if busy:
                system.wait_idle(timeout)
                busy = False
            if self.tally.stopped:
                return
            roster = {a.name: a for a in team.get_team_members()}
            if isinstance(step, Start) and step.name not in roster:
                self._start(team, step)
            elif isinstance(step, Register):
                team.register_agent_profiles([self.cards.get(c.role, c) for c in step.cards])
            elif isinstance(step, Say):
                said += 1
                self._say(system, roster, step, said)
                busy = True
        system.wait_idle(timeout)

    def _start(self, team: Any, step: Start) -> None:
        """The member as recorded, or as the card given for its role says (under its name);
        one that cannot start here (its class or its model's code is gone) is a `ReplayError`."""
        card = self.cards.get(step.role)
        try:
            if step.person:
                team.createActor(HumanProxy, BaseConfig(name=step.name, role=step.role))
            elif card is not None:
                config = card.get_config_copy().model_copy(update={"name": step.name})
                team.createActor(card.get_agent_class(), config)
            else:
                team.createActor(resolve_actor_class(step.actor_class), step.config)
        except (ValueError, ImportError) as exc:  # a ConfigError, an ActorClassError
            problem = "; ".join(line.strip() for line in str(exc).splitlines() if line.strip())
            raise ReplayError(f"{self.script.source}: {step.name} cannot start: {problem}") from exc

    def _say(
        self, system: ActorSystem, roster: dict[str, ActorAddress], step: Say, number: int
    ) -> None:
        person = next((a for a in roster.values() if a.is_user_proxy), None)
        recipient = roster.get(step.to)
        if person is None or recipient is None:
            missing = "no person's seat" if person is None else f"no member {step.to}"
            with self.tally.lock:
                self.tally.note(Difference("the person", number, "person", missing))
            return
        message = AgentMessage(content=step.content, type=step.intent)
        system.proxy_ask(person, HumanProxy).send(recipient, message)

    def report(self, team_id: str | None = None) -> ReplayReport:
        """The report, once the team is idle: turns never asked for are differences too."""
        tally = self.tally
        differences = list(tally.differences)
        if not tally.stopped:
            for lane in self.lanes.values():
                for index, turn in enumerate(lane.turns):
                    if index not in lane.served:
                        differences.append(
                            Difference(turn.agent, turn.number, "missing", _asked(turn.request))
                        )
        return ReplayReport(
            source=self.script.source,
            turns=sum(len(turns) for turns in self.script.turns.values()),
            replayed=tally.replayed,
            equal=tally.equal,
            differences=differences,
            answers=self.answers.answers,
            recorded_answers=list(self.script.answers),
            stopped=tally.stopped,
            team_id=team_id,
            served_tools=self.tally.serve_tools,
            untooled=sum(t.tools is None for turns in self.script.turns.values() for t in turns),
        )


def _asked(parts: list[dict[str, Any]]) -> str:
    return "\n".join(f"- {line}" for line in request_lines(parts)[:6])
