"""`A2AMember`: a team member whose turns are answered by a remote A2A agent.

    AgentCard(
        description="Reviews changes",
        agent_class=A2AMember,
        config=A2AMemberConfig(name="@Reviewer", role="Reviewer", url="http://host:8767/"),
    )

Each message the member receives goes to the remote agent as the text it is, and the
remote's answer comes back as the member's response to whoever sent it (a question the
remote asks, `input-required`, goes back as the member's request; the next message of that
task chain answers it). The turn is an ordinary run of the kernel on a model that talks to
the remote (`RemoteAgentModel`), so stopping, failures, usage and the record are the
kernel's: nothing here handles them twice.
"""

from __future__ import annotations

import os
from typing import Annotated, ClassVar

from pydantic import AfterValidator, Field, SecretStr, model_validator
from pydantic_ai.models import Model
from retinue import AgentConfig, AgentMessage, AgentState, BaseAgent
from retinue.kit import http_url, redact_address

from retinue_a2a.errors import RemoteAgentError
from retinue_a2a.events import RemoteProgressEvent
from retinue_a2a.model import RemoteAgentModel, RemoteConversation, Turn
from retinue_a2a.remote import Exchange

SHOWN_CHARS = 300
"""How much of a remote's update a progress event keeps."""


class A2AMemberConfig(AgentConfig):
    """An `A2AMember`'s config: the remote agent's address, and how long it may take.

    `url`: the agent's base URL (its card is read from `/.well-known/agent-card.json`
    there). `timeout`: seconds one exchange may take before the turn fails. A bearer token,
    if the remote wants one: `bearer_token_env` (an environment variable's name, read at
    each exchange: nothing secret is recorded) or `bearer_token`. `streaming`: follow the
    remote's task as a stream when it offers one (its updates become events).
    """

    url: Annotated[str, AfterValidator(http_url)]
    timeout: float = Field(default=300.0, gt=0, le=86_400)
    bearer_token: SecretStr | None = None
    bearer_token_env: str | None = None
    streaming: bool = True
    answers_per_turn: int = Field(default=1, ge=1, le=1)
    """One message per exchange: a remote agent is sent each message as a turn of its own."""

    @model_validator(mode="after")
    def _one_token(self) -> A2AMemberConfig:
        if self.bearer_token is not None and self.bearer_token_env is not None:
            raise ValueError("give bearer_token or bearer_token_env, not both")
        return self


class A2AMemberState(AgentState):
    """An agent's state, and where the member stands with its remote agent."""

    remote: RemoteConversation = Field(default_factory=RemoteConversation)


class A2AMember(BaseAgent):
    """A member answered by a remote A2A agent (see the module docstring)."""

    config_class: ClassVar[type[AgentConfig]] = A2AMemberConfig
    config: A2AMemberConfig
    state: A2AMemberState

    def default_state(self) -> A2AMemberState:
        return A2AMemberState()

    def own_model(self) -> Model | None:
        return RemoteAgentModel(self._remote_exchange, self._remote_turn, self._conversation)

    def _conversation(self) -> RemoteConversation:
        return self.state.remote

    def _remote_exchange(self) -> Exchange:
        config = self.config
        headers: dict[str, str] = {}
        token = config.bearer_token.get_secret_value() if config.bearer_token else None
        if config.bearer_token_env is not None:
            token = os.environ.get(config.bearer_token_env)
            if not token:
                raise RemoteAgentError(
                    f"the environment variable {config.bearer_token_env} (the A2A agent's "
                    "token) is not set"
                )
        if token:
            headers["Authorization"] = f"Bearer {token}"
        return Exchange(
            url=config.url,
            timeout=config.timeout,
            headers=headers,
            streaming=config.streaming,
            progress=self._remote_progress,
        )

    def _remote_turn(self) -> Turn | None:
        message = self.current_message
        if not isinstance(message, AgentMessage) or message.sender is None:
            return None
        return Turn(message.content, message.sender.name, message.type, message.chain_id)

    def _remote_progress(self, task_id: str, state: str, text: str) -> None:
        line = " ".join(text.split())
        self.notify_event(
            RemoteProgressEvent(
                agent_name=self.myAddress.name,
                url=redact_address(self.config.url),
                task_id=task_id,
                state=state,
                text=line if len(line) <= SHOWN_CHARS else line[: SHOWN_CHARS - 1] + "…",
            )
        )

    def render_prompt(self, message: AgentMessage) -> str:
        """The history keeps the message as it was sent on: its words, as they are."""
        return message.content
