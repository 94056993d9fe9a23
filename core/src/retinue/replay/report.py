"""What a replay found: `ReplayReport`, its `Difference`s, and how it reads as text."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from retinue.replay.script import Answer


class ReplayStoppedError(Exception):
    """Raised in the run of the agent whose request differed, to end a strict replay there."""


@dataclass(frozen=True, slots=True)
class Difference:
    """One request that was not the recorded one, or a turn asked for or left over.

    `what` is `instructions`, `messages`, `tools`, `extra` (a request the record does not
    have), `missing` (a recorded turn never asked for) or `person` (a message of the person's
    with nobody to take it); `detail` the diff or the reason.
    """

    agent: str
    turn: int
    what: str
    detail: str

    def __str__(self) -> str:
        head = f"{self.agent} turn {self.turn}: the {self.what} differ"
        if self.what == "extra":
            head = f"{self.agent} turn {self.turn}: a request the record does not have"
        elif self.what == "missing":
            head = f"{self.agent} turn {self.turn}: a recorded turn never asked for"
        elif self.what == "person":
            head = f"the person's message {self.turn} cannot be sent"
        return f"{head}\n" + "\n".join(f"    {line}" for line in self.detail.splitlines())


def by_sender(answers: Iterable[Answer]) -> dict[str, list[str]]:
    """The answers each sender gave the person, in order: timing between senders is no part
    of what a team answered."""
    grouped: dict[str, list[str]] = defaultdict(list)
    for answer in answers:
        grouped[answer.sender].append(answer.content)
    return dict(grouped)


@dataclass(slots=True)
class ReplayReport:
    """How a replay went: turns, differences, and whether the person got the same answers."""

    source: str
    turns: int
    """Recorded model turns."""
    replayed: int
    """Model requests answered from the record."""
    equal: int
    differences: list[Difference] = field(default_factory=list)
    answers: list[Answer] = field(default_factory=list)
    recorded_answers: list[Answer] = field(default_factory=list)
    stopped: bool = False
    """A strict replay stopped at its first difference."""
    team_id: str | None = None
    """The replay's own team (recorded only when asked)."""
    served_tools: bool = False
    """Tools answered from the record (nothing ran), not run."""
    untooled: int = 0
    """Recorded turns without tool definitions (a record or cassette from before they were
    kept): only the tools their answers call were checked."""

    @property
    def differing(self) -> int:
        return len(self.differences)

    @property
    def same_answers(self) -> bool:
        return by_sender(self.answers) == by_sender(self.recorded_answers)

    @property
    def ok(self) -> bool:
        """Every request as recorded, none left over, the same answers to the person."""
        return not self.differences and self.same_answers and not self.stopped

    def render(self) -> str:
        """The report for a person: the differences, then one summary line."""
        lines = [str(d) for d in self.differences]
        if self.stopped:
            lines.append("replay stopped at the first difference (--lenient goes on)")
        if not self.same_answers and not self.stopped:  # stopped: its failures reached them
            lines.append(_answers_diff(self.recorded_answers, self.answers))
        if self.differences and self.served_tools:
            lines.append(
                "tools were served from the record, so state they change and the model sees "
                "(a planning board) stayed as it was: --tools live runs them"
            )
        if self.untooled:
            lines.append(
                f"{self.untooled} of the {self.turns} recorded turns hold no tool definitions: "
                "of their tools, only those their answers call were checked"
            )
        answers = "the same answers" if self.same_answers else "different answers"
        lines.append(
            f"{self.source}: {self.turns} turns recorded, {self.replayed} replayed, "
            f"{self.equal} equal, {self.differing} differing; {answers} to the person"
        )
        return "\n".join(lines)


def _answers_diff(recorded: list[Answer], replayed: list[Answer]) -> str:
    was, now = by_sender(recorded), by_sender(replayed)
    lines = ["the answers to the person differ:"]
    for sender in sorted(set(was) | set(now)):
        if was.get(sender) != now.get(sender):
            lines.append(f"    {sender or '?'}: recorded {was.get(sender, [])!r}")
            lines.append(f"    {' ' * len(sender or '?')}  replayed {now.get(sender, [])!r}")
    return "\n".join(lines)
