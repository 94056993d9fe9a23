"""`Orchestrator`: one per team — roster, role profiles, subscribers, a window of messages.

It publishes the team's directory (members and profiles) on its `DirectoryBoard` whenever
either changes, so members read the team without asking (see `retinue.team.view`), and
owns the team's budget counter, which members charge directly (see `retinue.team.budget`),
and holds the team's `ChainLedger` (stops and loop counts per task chain), which members reach
through the same view. Its config may be a `TeamConfig`, whose `loops` set the ledger's
thresholds.
With a store (`ActorSystem(store=...)`) it records everything it observes through a
`Recorder`, committing in groups (`_after_item`) before subscribers hear of it
(docs/record.md).
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import threading
from typing import Any, ClassVar

from pydantic import BaseModel

from retinue.actors import runtime
from retinue.actors.actor import Actor
from retinue.actors.address import ActorAddress
from retinue.actors.config import BaseConfig, BaseState
from retinue.actors.errors import ActorNotFoundError, log_failure
from retinue.actors.loader import qualified_name
from retinue.actors.messages import (
    EventMessage,
    Message,
    ProfilesRegisteredMessage,
    StartMessage,
    StopMessage,
    StopRecursively,
)
from retinue.actors.redaction import redact_credentials
from retinue.actors.runtime_api import TeamViews
from retinue.actors.surface import remote
from retinue.frozen import FrozenMap
from retinue.team.budget import (
    BudgetBreach,
    BudgetRaisedMessage,
    BudgetSpentMessage,
    BudgetStatus,
    TeamUsage,
    TeamUsageLimits,
)
from retinue.team.card import AgentCard
from retinue.team.chains import ChainLedger, LoopLimits
from retinue.team.config import DEFAULT_WINDOW, TeamConfig
from retinue.team.lineage import TeamMember, descendants, roots
from retinue.team.local_budget import LocalTeamBudget
from retinue.team.local_team import OrchestratorTeam
from retinue.team.metadata import TeamMetadata
from retinue.team.names import MemberNames
from retinue.team.streams import OutputListener, OutputStreams
from retinue.team.subscriber import EventSubscriber, MessageSink
from retinue.team.team_log import TeamLog
from retinue.team.view import DirectoryBoard, TeamDirectory

logger = logging.getLogger(__name__)

#: Most messages one group commit holds while more reports keep arriving.
MAX_GROUP = 500
#: The team's store metadata key for `TeamConfig.import_path`.
IMPORT_PATH = "import_path"


class Orchestrator(Actor[BaseConfig, BaseState]):
    """The team's registry and observer; never asks an agent anything, so it cannot deadlock."""

    config_class: ClassVar[type[BaseConfig]] = TeamConfig
    starts_team: ClassVar[bool] = True
    #: Members in this process see the team through the orchestrator's own board and ledger.
    team_views: ClassVar[TeamViews] = OrchestratorTeam

    def __init__(self, config: BaseConfig, **kwargs: Any) -> None:
        super().__init__(config, **kwargs)
        window = config.window_size if isinstance(config, TeamConfig) else DEFAULT_WINDOW
        self._members: dict[str, TeamMember] = {}
        #: Guards the roster, the names and publishing: a hire admits a member from the
        #: hirer's own thread (see `admit`), never waiting for this actor's thread.
        self._roster_lock = threading.RLock()
        #: Members read the latest directory here; only this actor's thread publishes.
        turn_reports = isinstance(config, TeamConfig) and config.turn_reports
        self.directory_board = DirectoryBoard(TeamDirectory(turn_reports=turn_reports))
        self._names = MemberNames(reserved=[self.myAddress.name])
        self._subscribers: list[EventSubscriber] = []
        self._sinks: list[MessageSink] = []
        #: Who hears the members' outputs as their models write them (`listen_to_outputs`).
        self.output_streams = OutputStreams()
        limits = config.budget if isinstance(config, TeamConfig) else None
        #: The team's budget: members charge it directly, from their own threads.
        self.team_budget = LocalTeamBudget(
            limits, wake=self._wake_holders, report=self._report, announce=self._announce_spent
        )
        if isinstance(config, TeamConfig) and config.metadata is not None:
            self.set_metadata(config.metadata)
        loops = config.loops if isinstance(config, TeamConfig) else None
        #: The team's task chains: stops and loop counts; members read it from any thread.
        self.chain_ledger = ChainLedger(loops)
        self._log = TeamLog(window)  # the recent window, each actor's latest checkpoint
        self._disbanding = False  # a `StopRecursively` came: stop once the last member left
        self._unannounced: list[Message] = []  # observed, for subscribers after the commit
        store = self._system.store
        if store is not None:  # raises a StoreError here: the team does not start unrecorded
            metadata: dict[str, Any] = {
                "orchestrator": qualified_name(type(self)),
                "name": config.name,
            }
            if isinstance(config, TeamConfig) and config.import_path:
                metadata[IMPORT_PATH] = config.import_path  # read by a resume, before classes
            from retinue.team.recorder import Recorder  # the store layer: only when used

            team_id = self.myAddress.team_id or ""
            self.add_sink(Recorder(store, team_id, metadata, wake=self._flush_later))

    def on_start(self) -> None:
        """The team's first record: the orchestrator itself, what it was built from."""
        me = self.myAddress
        self._observe(
            StartMessage(
                config=redact_credentials(self.config),
                actor_class=qualified_name(type(self)),
                sender=me,
                recipient=me,
                team_id=me.team_id,
            )
        )
        self._commit()

    # ------------------------------------------------------------------ team
    @remote
    def createActor(
        self, actor_class: type[Any] | str, config: BaseConfig | None = None
    ) -> ActorAddress:
        """Start a member of this team (a person's proxy, the first agents)."""
        return self.system.spawn(
            actor_class, config, orchestrator=self.myAddress, parent=self.myAddress
        )

    @remote
    def admit(
        self, address: ActorAddress, parent: ActorAddress | None = None, *, resumed: bool = False
    ) -> ActorAddress:
        """Enter a new member under a name unique in the team (`@Dev`, `@Dev2`, ...).

        A name is unique among the members running now: a stopped member's name is free
        again. A `resumed` member comes back under its own name exactly (and its own id).
        Raises `ValueError` for a name no member may carry (see `check_member_name`), and
        for a resumed member whose name another member holds. Safe from any thread: the
        runtime calls it from the thread that starts the member, so a hire never waits for
        this actor's thread (busy recording, say).
        """
        wanted = address.name or f"@{address.role}"
        with self._roster_lock:
            name = self._names.claim_exact(wanted) if resumed else self._names.claim(wanted)
            admitted = address.model_copy(update={"name": name, "team_id": self.myAddress.team_id})
            self._members[admitted.agent_id] = TeamMember(address=admitted, parent=parent)
            self._publish(members=self.directory.members.evolve(put={name: admitted}))
        return admitted

    @remote
    def get_team(self) -> list[TeamMember]:
        """The current roster, with whether each member is busy right now."""
        roster = []
        with self._roster_lock:
            members = list(self._members.values())
        for member in members:
            actor = runtime.lookup(member.address.agent_id)
            busy = actor is not None and actor.describe_busy() is not None
            roster.append(member.model_copy(update={"busy": busy}))
        return roster

    @remote
    def get_team_members(self) -> list[ActorAddress]:
        """Addresses of the current members."""
        return list(self.directory.members.values())

    @remote
    def get_team_member(self, name: str) -> ActorAddress | None:
        """The member with this `@name`, or None."""
        return self.directory.member(name)

    @remote
    def get_directory(self) -> TeamDirectory:
        """The current directory; members read `directory_board` instead of asking."""
        return self.directory

    @property
    def directory(self) -> TeamDirectory:
        """The directory as last published."""
        return self.directory_board.current

    def _publish(
        self,
        members: FrozenMap[str, ActorAddress] | None = None,
        profiles: FrozenMap[str, AgentCard] | None = None,
    ) -> None:
        """Post the next directory when members or profiles changed (kept by identity).

        Called with the roster lock held, over a directory read under it.
        """
        current = self.directory
        members = current.members if members is None else members
        profiles = current.profiles if profiles is None else profiles
        if members is current.members and profiles is current.profiles:
            return
        self._post(members, profiles, current.metadata)

    def _post(
        self,
        members: FrozenMap[str, ActorAddress],
        profiles: FrozenMap[str, AgentCard],
        metadata: TeamMetadata | None,
    ) -> None:
        current = self.directory
        self.directory_board.publish(
            dataclasses.replace(
                current,
                version=current.version + 1,
                members=members,
                profiles=profiles,
                metadata=metadata,
            )
        )

    @remote
    def set_metadata(self, metadata: TeamMetadata | None) -> None:
        """Set the team's business context; agents started from now on render it.

        A system prompt is rendered once, when an agent starts, so members already running
        keep the context they started with (their prompt cache stays valid).
        """
        with self._roster_lock:
            current = self.directory
            if metadata != current.metadata:
                self._post(current.members, current.profiles, metadata)

    @remote
    def get_metadata(self) -> TeamMetadata | None:
        """The team's business context, or None."""
        return self.directory.metadata

    @remote
    def get_descendants(self, member: ActorAddress) -> list[ActorAddress]:
        """What `member` created, in the order a recursive stop takes it (see `lineage`)."""
        with self._roster_lock:
            members = list(self._members.values())
        return descendants(members, member)

    @remote
    def get_members_by_skill(self, skill: str) -> list[ActorAddress]:
        """The members whose role's blueprint lists `skill` (`AgentCard.has_skill`)."""
        return self.directory.members_with_skill(skill)

    @remote
    def get_user_proxies(self) -> list[ActorAddress]:
        """Members that stand for people."""
        with self._roster_lock:
            return [m.address for m in self._members.values() if m.address.is_user_proxy]

    # ------------------------------------------------------------------ profiles
    @remote
    def register_agent_profiles(self, cards: list[AgentCard]) -> None:
        """Make roles hireable by name; a later card for the same role replaces the earlier."""
        for card in cards:
            if not card.role:
                raise ValueError("an AgentCard needs config.role to be registered")
        put: dict[str, AgentCard] = {card.role: card for card in cards}
        with self._roster_lock:
            self._publish(profiles=self.directory.profiles.evolve(put=put))
        me = self.myAddress
        self._observe(
            ProfilesRegisteredMessage(
                cards=[redact_credentials(card) for card in cards],
                sender=me,
                recipient=me,
                team_id=me.team_id,
            )
        )

    @remote
    def get_agent_profiles(self) -> list[AgentCard]:
        """Every registered role blueprint."""
        return list(self.directory.profiles.values())

    @remote
    def get_agent_profile(self, role: str) -> AgentCard | None:
        """The blueprint for `role`, or None."""
        return self.directory.profile(role)

    @remote
    def get_profiles_by_skill(self, skill: str) -> list[AgentCard]:
        """The blueprints that list `skill`, ignoring case and surrounding spaces."""
        return self.directory.profiles_with_skill(skill)

    # ------------------------------------------------------------------ budget
    @remote
    def set_usage_limits(self, limits: TeamUsageLimits) -> TeamUsageLimits:
        """Set the team's budget (from code; a person uses `/budget`); holders are woken."""
        return self.team_budget.set_limits(limits, changed_by="code")

    @remote
    def restore_budget(self, usage: TeamUsage, limits: TeamUsageLimits) -> None:
        """Continue a resumed team's budget: the tally and limits folded from its record."""
        self.team_budget.restore(usage)
        if limits != self.team_budget.status().limits:
            self.team_budget.set_limits(limits, changed_by="resume")

    @remote
    def get_budget_status(self) -> BudgetStatus:
        """The budget's limits, tally and holders (`BudgetStatus`)."""
        return self.team_budget.status()

    def _wake_holders(self, holders: list[ActorAddress]) -> None:
        """Tell each member holding messages that the budget was raised; from any thread."""
        for holder in holders:
            news = BudgetRaisedMessage(
                sender=self.myAddress, recipient=holder, team_id=self.myAddress.team_id
            )
            news.chain_id = news.id
            self.system.route(self.myAddress, news)

    def _announce_spent(self, member: str, breaches: list[BudgetBreach]) -> None:
        """Have `member`, whose run reached a limit first, tell the person; from any thread."""
        address = self.directory.member(member)
        if address is None:  # it has left: the record keeps the `BudgetExhaustedEvent`
            logger.warning("%s reached the team's budget and has left: nobody told", member)
            return
        news = BudgetSpentMessage(
            breaches=breaches, sender=self.myAddress, recipient=address, team_id=address.team_id
        )
        news.chain_id = news.id
        self.system.route(self.myAddress, news)

    def _report(self, event: BaseModel) -> None:
        """Record a budget event as the orchestrator's own; from any thread."""
        self.system.send(self.myAddress, EventMessage(event=event), sender=self.myAddress)

    # ------------------------------------------------------------------ task chains
    @remote
    def get_loop_limits(self) -> LoopLimits:
        """The loop-detection thresholds in force for this team."""
        return self.chain_ledger.limits

    @remote
    def set_loop_limits(self, limits: LoopLimits) -> None:
        """Change the loop-detection thresholds; chains already counted keep their counts."""
        self.chain_ledger.limits = limits

    # ------------------------------------------------------------------ observation
    @remote
    def subscribe(self, subscriber: EventSubscriber, replay: bool = False) -> None:
        """Add an observer of every recorded message.

        `replay=True` first hands it the recent window (`get_messages()`), in order: a
        subscriber added after the team started misses nothing the window still holds,
        and sees nothing twice.
        """
        if replay:
            for message in list(self._log.window):
                self._tell_subscriber(subscriber, message)
        self._subscribers.append(subscriber)

    def _tell_subscriber(self, subscriber: EventSubscriber, message: Message) -> None:
        try:
            subscriber.on_message(message)
        except Exception as exc:  # noqa: BLE001 - a subscriber may raise anything: it is logged
            log_failure(logger, f"subscriber {subscriber!r} failed", exc)

    @remote
    def unsubscribe(self, subscriber: EventSubscriber) -> None:
        """Remove an observer."""
        if subscriber in self._subscribers:
            self._subscribers.remove(subscriber)

    @remote
    def listen_to_outputs(self, listener: OutputListener, listen: bool = True) -> None:
        """Hand `listener` every run's output as the model writes it (`listen=False`: stop).

        While anyone listens, the members' runs stream (see `retinue.team.streams`).
        """
        if listen:
            self.output_streams.add(listener)
        else:
            self.output_streams.remove(listener)

    @remote
    def add_sink(self, sink: MessageSink) -> None:
        """Add a durable record keeper (the event store)."""
        self._sinks.append(sink)

    @remote
    def get_messages(self) -> list[Message]:
        """The recent window of recorded messages, oldest first."""
        return list(self._log.window)

    @remote
    def get_events(
        self, agent_id: str | None = None, event_class: type[object] | str | None = None
    ) -> list[EventMessage]:
        """The window's events, oldest first, of one actor and one kind if given (`TeamLog`)."""
        return self._log.events(agent_id, event_class)

    @remote
    def get_states(self) -> dict[str, BaseModel]:
        """Each running actor's latest state checkpoint, by agent id."""
        return self._log.states()

    def receiveMsg_StopRecursively(self, message: StopRecursively, sender: Any) -> None:
        """Stop the whole team, each member after those it created; this actor last."""
        self._disbanding = True
        with self._roster_lock:
            starts = roots(self._members.values())
        for member in starts:
            self.system.send(member, StopRecursively(), sender=self.myAddress)
        if not starts:
            self.stop()

    def receiveMsg_Message(self, message: Message, sender: ActorAddress | None) -> None:
        if isinstance(message, StopMessage) and sender is not None:
            with self._roster_lock:
                gone = self._members.pop(sender.agent_id, None)
                if gone is not None:
                    self._names.release(gone.address.name)
                    members = self.directory.members.evolve(drop=[gone.address.name])
                    self._publish(members=members)
                last = not self._members
            if gone is not None:
                level = logging.DEBUG if message.shutdown else logging.INFO
                logger.log(level, "%s left the team", gone.address.name)
            if self._disbanding and last:
                self.stop()
        elif isinstance(message, StartMessage) and sender is not None:
            with self._roster_lock:
                member = self._members.get(sender.agent_id)
                if member is not None and member.parent is None:
                    self._members[sender.agent_id] = member.model_copy(
                        update={"parent": message.parent}
                    )
            hirer = message.parent
            if hirer is not None and hirer != self.myAddress:
                logger.info("%s hired %s (%s)", hirer.name, sender.name, sender.role)
        self._observe(message)

    def _observe(self, message: Message) -> None:
        """Window it, hand it to the sinks; subscribers hear of it after the commit."""
        self._log.add(message)
        for sink in self._sinks:
            try:
                sink.record(message)
            except Exception as exc:  # noqa: BLE001 - a sink may raise anything: the others record
                log_failure(logger, f"sink {sink!r} failed to record a message", exc)
        self._unannounced.append(message)

    def on_receive(self, message: Any) -> Any:
        """Each mailbox item, then the group commit (`_after_item`) before it counts as done."""
        tracker = self._system.tracker
        tracker.add()  # the commit is owed work too: wait_idle returns after it
        try:
            return super().on_receive(message)
        finally:
            try:
                self._after_item()
            finally:
                tracker.done()

    def _after_item(self) -> None:
        """Group commit: once nothing more is queued (or a group is full), flush the sinks,
        then tell the subscribers. A busy team's reports commit together, an idle one's at
        once: a team that is idle has its whole record committed and announced."""
        pending = len(self._unannounced)
        if pending and (pending >= MAX_GROUP or not self.mailbox.qsize()):
            self._commit()

    @remote
    def flush_sinks(self) -> None:
        """Have every sink make what it took durable now (a recorder retrying its store)."""
        for sink in self._sinks:
            try:
                sink.flush()
            except Exception as exc:  # noqa: BLE001 - a sink may raise anything: the others flush
                log_failure(logger, f"sink {sink!r} failed to flush", exc)

    def _flush_later(self) -> None:
        """From a recorder's retry timer: `flush_sinks` in this actor's thread."""
        with contextlib.suppress(ActorNotFoundError):  # stopped: its stop flushed them
            self.system.tell(self.myAddress, "flush_sinks")

    def _commit(self) -> None:
        if not self._unannounced:
            return
        self.flush_sinks()
        messages, self._unannounced = self._unannounced, []
        for message in messages:
            for subscriber in list(self._subscribers):
                self._tell_subscriber(subscriber, message)

    def on_stop(self) -> None:
        me = self.myAddress
        stop = StopMessage(
            sender=me, recipient=me, team_id=me.team_id, shutdown=self._system.shutting_down
        )
        self._observe(stop)
        self._commit()
        for sink in self._sinks:  # a sink may hold a resource: the recorder, the team's lease
            close = getattr(sink, "close", None)
            try:
                if callable(close):
                    close()
            except Exception as exc:  # noqa: BLE001 - a sink may raise anything: the others close
                log_failure(logger, f"sink {sink!r} failed to close", exc)
        for subscriber in self._subscribers:
            try:
                subscriber.on_stop()
            except Exception as exc:  # noqa: BLE001 - a subscriber may raise anything: others stop
                log_failure(logger, f"subscriber {subscriber!r} failed to stop", exc)
