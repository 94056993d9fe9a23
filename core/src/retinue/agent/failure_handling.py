"""`FailureHandling`: how an agent answers failures, the half of `BaseAgent` apart from its turn.

A turn that fails for good, a member this agent hired that cannot start, a message it sent
that found its recipient gone, and this agent's own failed start all end here: whoever waits
for the work gets a `FailureNotice` and the person one line (see `failures` for the notices
and the memory that keeps them from looping). So does a message this agent sent that could
go nowhere (`report_undelivered`): its own model reads why on its next turn. These are the
`Actor` failure hooks, so they sit in a base class of `BaseAgent` under the hooks' own names:
a subclass overrides them as before. The two things they need from the model side (is a run
in flight, note a line for the model) are hooks here, which `BaseAgent` fills in.
"""

from __future__ import annotations

import logging
from typing import Any

from retinue.actors.actor import Actor
from retinue.actors.address import ActorAddress, new_id
from retinue.actors.config import BaseConfig
from retinue.actors.errors import WarningError, describe_error, one_line
from retinue.actors.messages import Message, StartFailedMessage
from retinue.agent.cancel import from_operator
from retinue.agent.chain_host import ledger_of
from retinue.agent.config import AgentConfig, AgentState
from retinue.agent.failures import (
    FailureMemory,
    FailureNotice,
    HireOrigin,
    awaits_answer,
    delivery_notice,
    shown_recipient,
    start_failed_line,
    turn_failed_line,
    undelivered_line,
    undelivered_note,
)
from retinue.agent.messages import AgentMessage, Intent
from retinue.llm.errors import RunInterruptedError
from retinue.llm.framing import neutralize
from retinue.team.view import Team

logger = logging.getLogger(__name__)


class FailureHandling(Actor[AgentConfig, AgentState]):
    """The failure hooks of an agent: every failure reaches whoever waits, and the person once."""

    _failures: FailureMemory | None = None
    _team: Team | None = None

    def running_run_id(self) -> str | None:
        """The model run in flight, if any; an actor without a model runner has none."""
        return None

    def _note_for_model(self, text: str) -> None:
        """Put a line from the kernel into the model's history; no model, nowhere to put it."""

    @property
    def team(self) -> Team | None:
        """This agent's team as a typed view (no asks to read it); None outside any team."""
        if self._team is None and self.orchestrator is not None:
            self._team = self.system.team_view(self.orchestrator, self.myAddress)
        return self._team

    def on_handler_failed(self, message: Message, error: Exception) -> None:
        """A turn failed for good: a notice to whoever waits for it, one line to the person.

        The requester (the sender of a request or an instruction) gets a `FailureNotice` in
        the message's chain, from this member. When the requester is a person, that notice
        is their one line; otherwise the team's person gets the line too. A `WarningError`
        raised after the person was told (a spent budget) tells them nothing more. Failing
        on a failure notice tells the person only: a notice never causes another. An
        interruption that `act()` had to re-raise (an output type with required fields) is
        no failure: it was stopped on purpose, and `act()` told the person.
        """
        if isinstance(error, RunInterruptedError):
            return
        reason = describe_error(error)
        line = turn_failed_line(self.myAddress.name, message, reason)
        person_told = isinstance(error, WarningError) and error.person_told
        requester = message.sender if awaits_answer(message) else None
        if requester is not None and requester.is_user_proxy:
            if not person_told:
                self.send(requester, self._turn_notice(message, reason, line, "response"))
            return
        if not person_told:  # the person first: they learn of it before any agent reacts
            self._tell_person(self._turn_notice(message, reason, line, "notification"))
        if requester is not None:
            self.send(requester, self._turn_notice(message, reason, line, "response"))

    def _turn_notice(
        self, message: Message, reason: str, line: str, intent: Intent
    ) -> FailureNotice:
        return FailureNotice(
            failure="turn",
            member=self.myAddress.name,
            reason=reason,
            failed_message_id=message.id,
            failed_parent_id=message.parent_id,
            content=line,
            type=intent,
            parent_id=message.id,
        )

    def on_start_failed(self, error: Exception) -> None:
        """This agent could not start: the person hears of it, once, and the hiring agent."""
        parent = self.parent
        hired = parent is not None and parent != self.orchestrator and not parent.is_user_proxy
        reason = describe_error(error)
        name = self.myAddress.name
        self._tell_person(
            FailureNotice(
                failure="start",
                member=name,
                reason=reason,
                content=start_failed_line(name, reason, parent.name if hired and parent else None),
                type="notification",
            )
        )
        super().on_start_failed(error)

    def createActor(
        self, actor_class: type[Any] | str, config: BaseConfig | None = None
    ) -> ActorAddress:
        """Start a member hired by this agent; a member that cannot start is news.

        Remembers which message the hire served, so a start that fails later (in the new
        member's own thread) is answered in that message's chain.
        """
        current = self._current
        try:
            address = super().createActor(actor_class, config)
        except Exception as exc:
            if not self.system.shutting_down:
                self._report_failed_hire(_member_label(actor_class, config), exc, current)
            raise
        self._failure_memory.hired(
            address.agent_id,
            HireOrigin(
                current.id if current is not None else None,
                current.chain_id if current is not None else None,
                _owes_hire_notice(current),
            ),
        )
        return address

    def _report_failed_hire(self, member: str, error: Exception, current: Message | None) -> None:
        """A member failed while being created, in this agent's own call.

        An operator's `/hire_member` answers with the error itself; a model's tool call reads
        it in its result. Otherwise (a bare role named as a recipient) the hiring agent's model
        gets a notice of its own, and in every case but the operator's the person a line: the
        news of the drop routing then reports, which tells the person nothing more.
        """
        reason = describe_error(error)
        logger.warning("%s could not hire %s: %s", self.myAddress.name, member, reason)
        if current is not None and _is_operator_command(current):
            return
        self._first_drop()
        notice = FailureNotice(
            failure="start",
            member=member,
            reason=reason,
            content=start_failed_line(member, reason, self.myAddress.name),
            type="notification",
        )
        self._tell_person(notice)
        if _owes_hire_notice(current) and self.running_run_id() is None:
            self.send(self.myAddress, notice)

    def receiveMsg_StartFailedMessage(
        self, message: StartFailedMessage, sender: ActorAddress | None
    ) -> None:
        """A member this agent hired could not start: the model hears of it from that member."""
        member = message.member
        origin = self._failure_memory.start_failed(member.agent_id)  # what was sent: no news
        if origin is not None and not origin.owes_notice:
            logger.info("%s: %s could not start", self.myAddress.name, member.name)
            return
        reason = message.exception_value
        notice = FailureNotice(
            failure="start",
            member=member.name,
            reason=reason,
            content=start_failed_line(member.name, reason, self.myAddress.name),
            type="notification",
        )
        parent_id = origin.message_id if origin is not None else None
        chain_id = origin.chain_id if origin is not None else None
        msg_id = new_id()
        self.system.route(
            self.orchestrator,
            notice.model_copy(
                update={
                    "id": msg_id,
                    "sender": member,
                    "recipient": self.myAddress,
                    "team_id": self.myAddress.team_id,
                    "parent_id": parent_id,
                    "chain_id": chain_id or msg_id,
                }
            ),
        )

    @property
    def _failure_memory(self) -> FailureMemory:
        """What this agent remembers of hires and notices (made on first use)."""
        if self._failures is None:
            self._failures = FailureMemory()
        return self._failures

    def _absorbs(self, notice: FailureNotice) -> bool:
        """Whether a notice joins the history instead of getting a turn (see `FailureMemory`).

        A delivery notice of intent `notification` never gets one: nobody waited on what this
        agent sent (an answer whose requester left), so it is reported as undelivered.
        """
        if notice.failure == "delivery" and notice.type == "notification":
            self.report_undelivered(notice.member, notice.reason)
            return True
        absorbed, tell_person = self._failure_memory.absorbs(notice)
        if absorbed:
            self._note_for_model(notice.content)
            if tell_person:
                self._tell_person(notice.model_copy(update={"type": "notification"}))
        return absorbed

    def undeliverable_notice(self, message: Message, recipient: ActorAddress) -> Message | None:
        """A message this agent sent found its recipient gone: a notice.

        A request or an instruction gets its answer from it (a turn); any other message an
        agent writes (an answer, a notification), a notice with no turn (see `_absorbs`).
        """
        if awaits_answer(message):
            return delivery_notice(message, recipient, self.myAddress)
        if isinstance(message, AgentMessage) and not isinstance(message, FailureNotice):
            return delivery_notice(message, recipient, self.myAddress, "notification")
        return None

    def report_undelivered(self, recipient: str, reason: str, *, person_told: bool = False) -> None:
        """What this agent sent to `recipient` could go nowhere: its model reads why on its
        next turn, and the person hears of it once per task chain (`person_told`: they know
        already, from a stop or a loop of that chain).

        Both lines are the kernel's: the recipient a model wrote is quoted unless it is a
        plain name, and neither it nor the reason can break the line or open a fence.
        """
        shown, why = shown_recipient(recipient), one_line(neutralize(reason)).rstrip(".")
        self._note_for_model(undelivered_note(shown, why))
        if person_told or self.system.shutting_down or not self._first_drop():
            return
        line = undelivered_line(self.myAddress.name, shown, why)
        self._tell_person(
            FailureNotice(
                failure="delivery", member=shown, reason=why, content=line, type="notification"
            )
        )

    def _first_drop(self) -> bool:
        """Whether the person is still to hear of a drop in the current turn's chain."""
        current = self.current_message
        chain_id = current.chain_id if current is not None else None
        ledger = ledger_of(self)
        return chain_id is None or ledger is None or ledger.first_drop(chain_id)

    def _tell_person(self, notice: FailureNotice) -> None:
        """Send the team's person (its first user proxy) the notice's one line."""
        person = self._person()
        if person is None:
            logger.info("%s: no person to tell: %s", self.myAddress.name, notice.content)
            return
        self.send(person, notice)

    def _person(self) -> ActorAddress | None:
        """The team's person, its first user proxy (found by `is_user_proxy`), or None."""
        if self.orchestrator is None:
            return None
        proxies: list[ActorAddress] = self.ask_orchestrator("get_user_proxies")
        return proxies[0] if proxies else None


def _is_operator_command(message: Message) -> bool:
    return (
        isinstance(message, AgentMessage)
        and message.content.startswith("/")
        and from_operator(message)
    )


def _owes_hire_notice(origin: Message | None) -> bool:
    """Whether a failed hire made while handling `origin` gets the hiring model a notice.

    Not for a hire made from code or by an operator's command (they hear of it directly),
    and never for one made while handling a failure notice: a notice never causes another.
    """
    if origin is None or isinstance(origin, FailureNotice):
        return False
    return not _is_operator_command(origin)


def _member_label(actor_class: type[Any] | str, config: BaseConfig | None) -> str:
    if config is not None and config.name:
        return config.name
    if config is not None and config.role:
        return f"@{config.role}"
    name = actor_class if isinstance(actor_class, str) else actor_class.__name__
    return f"a new {name.rsplit('.', 1)[-1]}"
