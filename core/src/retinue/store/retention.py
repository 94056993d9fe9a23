"""`Retention`: which telemetry a store may prune, never what a resume reads.

A resume reads the latest checkpoint of each actor (the snapshots), and the conversation, the
roster, model messages, usage, runs and planning changes in full. What it never reads is
telemetry: tool-call events (the calls are in the model messages too), command announcements
(made again when an agent starts), turn starts and ends (`ReceivedMessage`,
`ProcessedMessage`: timing only), and checkpoints superseded by a newer one of the same
actor. `Retention` prunes only those, and refuses to be told to prune anything else.
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: The kind of a state checkpoint (superseded ones may be pruned; the latest never is).
CHECKPOINT = "StateChangedMessage"
START = "StartMessage"
STOP = "StopMessage"

#: Kinds a resume, a replay or the conversation's reader needs: no retention setting may
#: prune them.
PROTECTED_KINDS: frozenset[str] = frozenset(
    {
        "SentMessage",
        START,
        STOP,
        CHECKPOINT,
        "HandledMessage",
        "ErrorMessage",
        "StartFailedMessage",
        "ProfilesRegisteredMessage",
        "ModelMessageEvent",
        "LlmUsageEvent",
        "RunStartedEvent",
        "RunFinishedEvent",
        "ContextResetEvent",
        "PlanningChangedEvent",
        "DeadLetterEvent",
        "TeamForkedEvent",
        "ToolDefinitionsEvent",  # a replay's: only changes are recorded, each one counts
    }
)

#: Telemetry pruned by default: tool calls, command announcements, and the turns' starts
#: and ends of a team that reports them (`TeamConfig.turn_reports`).
DEFAULT_TELEMETRY: frozenset[str] = frozenset(
    {"ToolCallEvent", "CommandsAnnouncedEvent", "ReceivedMessage", "ProcessedMessage"}
)


@dataclass(frozen=True, slots=True)
class Retention:
    """How much telemetry a team's stream keeps; applied by `Store.prune`.

    `telemetry`: the kinds that count as telemetry; the newest `keep_telemetry` records of
    those kinds stay per team (None: all stay). `keep_superseded_checkpoints`: keep every
    checkpoint, not only each actor's latest. `every`: the recorder prunes a team after this
    many appended records (0: only when `Store.prune` is called).
    """

    telemetry: frozenset[str] = field(default=DEFAULT_TELEMETRY)
    keep_telemetry: int | None = 1000
    keep_superseded_checkpoints: bool = False
    every: int = 1000

    def __post_init__(self) -> None:
        object.__setattr__(self, "telemetry", frozenset(self.telemetry))
        needed = sorted(self.telemetry & PROTECTED_KINDS)
        if needed:
            raise ValueError(
                f"Retention cannot prune {', '.join(needed)}: a resume or the conversation "
                "needs them (only telemetry such as ToolCallEvent may be pruned)"
            )
        if self.keep_telemetry is not None and self.keep_telemetry < 0:
            raise ValueError(
                f"Retention.keep_telemetry must be 0 or more, not {self.keep_telemetry}"
            )
        if self.every < 0:
            raise ValueError(f"Retention.every must be 0 or more, not {self.every}")


#: Keep everything: no telemetry pruned, every checkpoint kept.
KEEP_ALL = Retention(telemetry=frozenset(), keep_telemetry=None, keep_superseded_checkpoints=True)
