"""`Orchestrator`: one per team — roster, role profiles, subscribers, a window of messages.

It publishes the team's directory (members and profiles) on its `DirectoryBoard` whenever
either changes, so members read the team without asking (see `retinue.team.view`), and
owns the team's budget counter, which members charge directly (see `retinue.team.budget`),
and holds the team's `ChainLedger` (stops and loop counts per task chain), which members reach
through the same view. Its config may be a `TeamConfig`, whose `loops` set the ledger's
thresholds.
With a store (`ActorSystem(store=...)`) it records everything it observes through a
`Recorder`, committing in groups (`TeamObservers.after_item`) before subscribers hear of it
(docs/record.md).

It is the team's remote surface; what it holds has modules of its own: the members and the
directory (`roster`), the sinks and subscribers (`observers`), the budget's news
(`budget_news`).
"""

from __future__ import annotations

import contextlib
import logging
from typing import Any, ClassVar

from pydantic import BaseModel

from retinue.actors import runtime
from retinue.actors.actor import Actor
from retinue.actors.address import ActorAddress
from retinue.actors.config import BaseConfig, BaseState
from retinue.actors.errors import ActorNotFoundError
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
from retinue.team.budget import BudgetStatus, TeamUsageLimits
from retinue.team.budget_news import BudgetNews
from retinue.team.card import AgentCard
from retinue.team.chains import ChainLedger, LoopLimits
from retinue.team.config import DEFAULT_WINDOW, TeamConfig
from retinue.team.lineage import TeamMember
from retinue.team.local_budget import LocalTeamBudget
from retinue.team.local_team import OrchestratorTeam
from retinue.team.metadata import TeamMetadata
from retinue.team.observers import MAX_GROUP, TeamObservers
from retinue.team.roster import TeamRoster
from retinue.team.streams import OutputListener, OutputStreams
from retinue.team.subscriber import EventSubscriber, MessageSink
from retinue.team.tally import TeamUsage
from retinue.team.view import DirectoryBoard, TeamDirectory

logger = logging.getLogger(__name__)

#: The team's store metadata key for `TeamConfig.import_path`.
IMPORT_PATH = "import_path"
__all__ = ["IMPORT_PATH", "MAX_GROUP", "Orchestrator"]


class Orchestrator(Actor[BaseConfig, BaseState]):
    """The team's registry and observer; never asks an agent anything, so it cannot deadlock."""

    config_class: ClassVar[type[BaseConfig]] = TeamConfig
    starts_team: ClassVar[bool] = True
    #: Members in this process see the team through the orchestrator's own board and ledger.
    team_views: ClassVar[TeamViews] = OrchestratorTeam

    def __init__(self, config: BaseConfig, **kwargs: Any) -> None:
        super().__init__(config, **kwargs)
        window = config.window_size if isinstance(config, TeamConfig) else DEFAULT_WINDOW
        #: Members read the latest directory here; only the roster publishes.
        turn_reports = isinstance(config, TeamConfig) and config.turn_reports
        self.directory_board = DirectoryBoard(TeamDirectory(turn_reports=turn_reports))
        self._roster = TeamRoster(self.directory_board, self.myAddress)
        #: Who hears the members' outputs as their models write them (`listen_to_outputs`).
        self.output_streams = OutputStreams()
        limits = config.budget if isinstance(config, TeamConfig) else None
        news = BudgetNews(self.system, self.myAddress, self.directory_board)
        #: The team's budget: members charge it directly, from their own threads.
        self.team_budget = LocalTeamBudget(
            limits, wake=news.wake_holders, report=news.report, announce=news.announce_spent
        )
        if isinstance(config, TeamConfig) and config.metadata is not None:
            self.set_metadata(config.metadata)
        loops = config.loops if isinstance(config, TeamConfig) else None
        #: The team's task chains: stops and loop counts; members read it from any thread.
        self.chain_ledger = ChainLedger(loops)
        self._observers = TeamObservers(window)
        self._disbanding = False  # a `StopRecursively` came: stop once the last member left
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
        self._observers.observe(
            StartMessage(
                config=redact_credentials(self.config),
                actor_class=qualified_name(type(self)),
                sender=me,
                recipient=me,
                team_id=me.team_id,
            )
        )
        self._observers.commit()

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
        return self._roster.admit(address, parent, resumed=resumed)

    @remote
    def get_team(self) -> list[TeamMember]:
        """The current roster, with whether each member is busy right now."""
        roster = []
        for member in self._roster.members():
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

    @remote
    def set_metadata(self, metadata: TeamMetadata | None) -> None:
        """Set the team's business context; agents started from now on render it.

        A system prompt is rendered once, when an agent starts, so members already running
        keep the context they started with (their prompt cache stays valid).
        """
        self._roster.set_metadata(metadata)

    @remote
    def get_metadata(self) -> TeamMetadata | None:
        """The team's business context, or None."""
        return self.directory.metadata

    @remote
    def get_descendants(self, member: ActorAddress) -> list[ActorAddress]:
        """What `member` created, in the order a recursive stop takes it (see `lineage`)."""
        return self._roster.descendants(member)

    @remote
    def get_members_by_skill(self, skill: str) -> list[ActorAddress]:
        """The members whose role's blueprint lists `skill` (`AgentCard.has_skill`)."""
        return self.directory.members_with_skill(skill)

    @remote
    def get_user_proxies(self) -> list[ActorAddress]:
        """Members that stand for people."""
        return self._roster.user_proxies()

    # ------------------------------------------------------------------ profiles
    @remote
    def register_agent_profiles(self, cards: list[AgentCard]) -> None:
        """Make roles hireable by name; a later card for the same role replaces the earlier."""
        self._roster.add_profiles(cards)
        me = self.myAddress
        self._observers.observe(
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
        self._observers.subscribe(subscriber, replay)

    @remote
    def unsubscribe(self, subscriber: EventSubscriber) -> None:
        """Remove an observer."""
        self._observers.unsubscribe(subscriber)

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
        self._observers.add_sink(sink)

    @remote
    def get_messages(self) -> list[Message]:
        """The recent window of recorded messages, oldest first."""
        return list(self._observers.log.window)

    @remote
    def get_events(
        self, agent_id: str | None = None, event_class: type[object] | str | None = None
    ) -> list[EventMessage]:
        """The window's events, oldest first, of one actor and one kind if given (`TeamLog`)."""
        return self._observers.log.events(agent_id, event_class)

    @remote
    def get_states(self) -> dict[str, BaseModel]:
        """Each running actor's latest state checkpoint, by agent id."""
        return self._observers.log.states()

    def receiveMsg_StopRecursively(self, message: StopRecursively, sender: Any) -> None:
        """Stop the whole team, each member after those it created; this actor last."""
        self._disbanding = True
        starts = self._roster.roots()
        for member in starts:
            self.system.send(member, StopRecursively(), sender=self.myAddress)
        if not starts:
            self.stop()

    def receiveMsg_Message(self, message: Message, sender: ActorAddress | None) -> None:
        if isinstance(message, StopMessage) and sender is not None:
            gone, last = self._roster.leave(sender)
            if gone is not None:
                level = logging.DEBUG if message.shutdown else logging.INFO
                logger.log(level, "%s left the team", gone.address.name)
            if self._disbanding and last:
                self.stop()
        elif isinstance(message, StartMessage) and sender is not None:
            self._roster.started(sender, message.parent)
            hirer = message.parent
            if hirer is not None and hirer != self.myAddress:
                logger.info("%s hired %s (%s)", hirer.name, sender.name, sender.role)
        self._observers.observe(message)

    def on_receive(self, message: Any) -> Any:
        """Each mailbox item, then the group commit (`after_item`) before it counts as done."""
        tracker = self._system.tracker
        tracker.add()  # the commit is owed work too: wait_idle returns after it
        try:
            return super().on_receive(message)
        finally:
            try:
                self._observers.after_item(self.mailbox)
            finally:
                tracker.done()

    @remote
    def record_now(self, message: Message) -> None:
        """Observe `message` and commit it (with all before it) before answering: a tool
        call's start is durable before the tool runs (the tool-effect ledger)."""
        self.receiveMsg_Message(message, message.sender)
        self._observers.commit()

    @remote
    def flush_sinks(self) -> None:
        """Have every sink make what it took durable now (a recorder retrying its store)."""
        self._observers.flush()

    def _flush_later(self) -> None:
        """From a recorder's retry timer: `flush_sinks` in this actor's thread."""
        with contextlib.suppress(ActorNotFoundError):  # stopped: its stop flushed them
            self.system.tell(self.myAddress, "flush_sinks")

    def on_stop(self) -> None:
        me = self.myAddress
        stop = StopMessage(
            sender=me, recipient=me, team_id=me.team_id, shutdown=self._system.shutting_down
        )
        self._observers.observe(stop)
        self._observers.commit()
        self._observers.close()
