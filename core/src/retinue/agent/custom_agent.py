"""A worked example of a second agent class: its own message, schema, router and capability.

It shows what a new agent class needs and nothing more: the usage-limit policy comes from
the decorator (no `except` in the handler, not even for cancellation), a run-tier breach
concludes in `TriageOutput` through `_route_triage`, and `extra_capabilities` adds a
pydantic-ai capability that runs around every model request, after the kernel's own.
"""

from __future__ import annotations

import logging
from typing import Any

from pydantic import BaseModel, Field
from pydantic_ai import RunContext
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.models import ModelRequestContext

from retinue.actors.address import ActorAddress
from retinue.actors.messages import Message
from retinue.actors.surface import remote
from retinue.agent.agent import BaseAgent
from retinue.agent.messages import AgentMessage
from retinue.agent.routing import resolve_recipient
from retinue.agent.usage_guard import guard_usage_limits

logger = logging.getLogger(__name__)


class TriageMessage(Message):
    """A batch of work to split between members."""

    content: str


class Handoff(BaseModel):
    """One piece of the batch and who should take it."""

    recipient: str = Field(description="'@Name' of a member, or a role to hire")
    task: str


class TriageOutput(BaseModel):
    """The triage decision; empty when nothing needs handing off."""

    handoffs: list[Handoff] = Field(default_factory=list)


class AuditCapability(AbstractCapability[Any]):
    """Counts the model requests of one agent (a stand-in for observability or a guard)."""

    def __init__(self, agent_name: str) -> None:
        self.agent_name = agent_name
        self.requests = 0

    async def before_model_request(
        self, ctx: RunContext[Any], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        self.requests += 1
        logger.debug("%s: model request %d", self.agent_name, self.requests)
        return request_context


class CustomAgent(BaseAgent):
    """Triages `TriageMessage`s into hand-offs, with the kernel's policies for free."""

    def extra_capabilities(self) -> list[AbstractCapability[Any]]:
        self.audit = AuditCapability(self.config.name)
        return [self.audit]

    def _route_triage(self, output: TriageOutput) -> bool:
        """Deliver each hand-off; report whether anything actually went out."""
        delivered = False
        for handoff in output.handoffs:
            member = resolve_recipient(self, handoff.recipient)
            if member is None:  # unknown, or a hire that cannot happen (logged with why)
                continue
            self.send(member, AgentMessage(content=handoff.task, type="request"))
            delivered = True
        return delivered

    @guard_usage_limits(output_type=TriageOutput, route=_route_triage)
    def receiveMsg_TriageMessage(self, message: TriageMessage, sender: ActorAddress | None) -> None:
        prompt = (
            "Split this work between team members and roles; each hand-off names a recipient "
            f"and its task.\n\n{message.content}"
        )
        output = self.act(prompt, TriageOutput)
        self._route_triage(output)

    @remote
    def get_audited_requests(self) -> int:
        """How many model requests the audit capability saw."""
        return self.audit.requests
