"""`ask_person`: a kernel tool with which a model asks the team's person and waits for the
answer without ending its turn.

Offered to a role whose config says `ask_person = true`. The call is deferred (pydantic-ai's
`CallDeferred`): the run parks as for an approval (`approvals`), the person is asked once,
and the run goes on with the person's `/answer` as the tool's result.
"""

from __future__ import annotations

from pydantic_ai.exceptions import CallDeferred

TOOL = "ask_person"


def ask_person(question: str, choices: list[str] | None = None) -> str:
    """Ask the person a question and wait for their answer (with `choices`, one of them)."""
    raise CallDeferred({"question": question, "choices": choices})
