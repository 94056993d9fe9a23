"""What an `A2AMember` publishes while a remote agent works on its turn."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class RemoteProgressEvent(BaseModel):
    """A remote agent's update on the task a member's turn sent it (a status, an artifact).

    `state` is the A2A task state in the spec's words (`working`, `input-required`, ...);
    `text` what the update said, shortened. A frontend shows it as the member at work.
    """

    model_config = ConfigDict(frozen=True)

    agent_name: str
    url: str
    task_id: str
    state: str
    text: str = ""
