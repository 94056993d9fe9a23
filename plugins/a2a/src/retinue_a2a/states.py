"""A2A task states in the spec's own words, and the text of what a task or update says."""

from __future__ import annotations

from a2a.types.a2a_pb2 import Message, Role, Task, TaskState

TERMINAL = frozenset(
    {
        TaskState.TASK_STATE_COMPLETED,
        TaskState.TASK_STATE_FAILED,
        TaskState.TASK_STATE_CANCELED,
        TaskState.TASK_STATE_REJECTED,
    }
)
"""States a task never leaves."""
PAUSED = frozenset({TaskState.TASK_STATE_INPUT_REQUIRED, TaskState.TASK_STATE_AUTH_REQUIRED})
"""States in which a task waits for the client."""


def state_name(state: int) -> str:
    """`TASK_STATE_INPUT_REQUIRED` as the spec writes it: `input-required`."""
    name: str = TaskState.Name(state)
    return name.removeprefix("TASK_STATE_").lower().replace("_", "-")


def message_text(message: Message) -> str:
    """The text parts of a message, one per line."""
    return "\n".join(part.text for part in message.parts if part.text)


def task_text(task: Task) -> str:
    """What a task answers: its status message, else its artifacts' text, else the last
    message the agent wrote in its history."""
    if task.status.HasField("message"):
        text = message_text(task.status.message)
        if text:
            return text
    artifacts = "\n".join(
        part.text for artifact in task.artifacts for part in artifact.parts if part.text
    )
    if artifacts:
        return artifacts
    agent_said = [m for m in task.history if m.role == Role.ROLE_AGENT]
    return message_text(agent_said[-1]) if agent_said else ""
