"""Context updates: at most one block per run, full or delta, healed against the history."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any, ClassVar

import pytest
from pydantic_ai.messages import (
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    TextContent,
    TextPart,
    UserPromptPart,
)
from retinue import FrozenMap
from retinue.llm.context import fold_into_prompt
from retinue.tools import (
    MARKER_KEY,
    ContextProvider,
    ContextState,
    ContextUpdater,
    ToolState,
    find_markers,
)

from tests.tools.fakes import FakeState

FULL = "— current state."
DELTA = "— state has changed since the last update."


class Agent:
    """Just enough of an agent: a state slot read through `self.state`, and a history."""

    def __init__(self, providers: Mapping[str, ContextProvider]) -> None:
        self.state = FakeState()
        self.history: list[ModelMessage] = []
        self.updater = ContextUpdater(providers, lambda: self.state.tool_state)

    @property
    def slot(self) -> ToolState:
        return self.state.tool_state

    def turn(self, text: str = "next") -> str | None:
        """Deliver a block if one is due (as its own user part), then the user's message.

        Returns the block's text, as the model reads it.
        """
        block = self.updater.compose(self.history)
        parts = [UserPromptPart([block])] if block is not None else []
        self.history.append(ModelRequest(parts=[*parts, UserPromptPart(text)]))
        self.history.append(ModelResponse(parts=[TextPart("done")]))
        return block.content if block is not None else None

    def forget_block(self, number: int) -> None:
        """Drop the request that carried block `number` (compaction, a trim)."""
        self.history = [
            m
            for m in self.history
            if not (isinstance(m, ModelRequest) and number in [b.number for b in find_markers([m])])
        ]


@pytest.fixture
def roster() -> dict[str, str]:
    return {"Ada": "Developer", "Bob": "Tester"}


@pytest.fixture
def plan() -> list[str]:
    return ["1. write the parser"]


@pytest.fixture
def agent(roster: dict[str, str], plan: list[str]) -> Agent:
    return Agent({"roster": lambda: roster, "planning": lambda: plan[0]})


def header(block: str | None) -> str:
    assert block is not None
    return block.splitlines()[0]


# -- the block itself -----------------------------------------------------------------------


def test_first_block_is_a_full_snapshot_of_every_provider(agent: Agent) -> None:
    block = agent.turn()
    assert block == (
        "**Context update 1** — current state.\n\n"
        "### roster\n- Ada: Developer\n- Bob: Tester\n\n"
        "### planning\n1. write the parser"
    )
    assert agent.slot.last_block == 1
    assert agent.slot.baselines == {
        "roster": {"Ada": "Developer", "Bob": "Tester"},
        "planning": "1. write the parser",
    }


def test_nothing_changed_means_no_block_and_no_new_number(agent: Agent) -> None:
    agent.turn()
    assert agent.turn() is None
    assert agent.turn() is None
    assert agent.slot.last_block == 1


def test_a_change_is_a_delta_of_added_changed_and_removed_items(
    agent: Agent, roster: dict[str, str]
) -> None:
    agent.turn()
    roster["Ada"] = "Lead developer"
    del roster["Bob"]
    roster["Cy"] = "Reviewer"
    block = agent.turn()
    assert block == (
        f"**Context update 2** {DELTA}\n\n"
        "### roster (changed)\n"
        "Added:\n- Cy: Reviewer\n"
        "Changed:\n- Ada: Lead developer\n"
        "Removed:\n- Bob"
    )
    assert agent.turn() is None


def test_a_changed_text_is_restated_whole(agent: Agent, plan: list[str]) -> None:
    agent.turn()
    plan[0] = "1. write the parser\n2. test it"
    block = agent.turn()
    assert block == (
        f"**Context update 2** {DELTA}\n\n### planning (updated)\n1. write the parser\n2. test it"
    )


def test_one_block_per_run_carries_every_changed_section(
    agent: Agent, roster: dict[str, str], plan: list[str]
) -> None:
    agent.turn()
    roster["Cy"] = "Reviewer"
    plan[0] = "done"
    block = agent.turn()
    assert block is not None
    assert block.count("**Context update") == 1
    assert "### roster (changed)" in block
    assert "### planning (updated)" in block


def test_a_provider_new_in_a_delta_block_is_rendered_full(
    agent: Agent, roster: dict[str, str]
) -> None:
    agent.turn()
    # The same agent restored with one more card: same slot, same history.
    later = Agent({"roster": lambda: roster, "roles": lambda: {"Developer": "writes code"}})
    later.state, later.history = agent.state, agent.history
    block = later.turn()
    assert header(block) == f"**Context update 2** {DELTA}"
    assert block is not None
    assert "### roles (new)\n- Developer: writes code" in block
    # The planning provider went away with its card: the model is told, not left stale.
    assert "### planning (removed)\nNo longer provided." in block
    assert "### roster" not in block
    assert set(later.slot.baselines) == {"roster", "roles"}
    assert later.turn() is None


def test_multiline_items_and_empty_states_render_readably() -> None:
    agent = Agent({"tasks": lambda: {"T1": "parse\nand test", "T2": ""}, "notes": lambda: ""})
    assert agent.turn() == (
        "**Context update 1** — current state.\n\n"
        "### tasks\n- T1: parse\n  and test\n- T2\n\n"
        "### notes\n(empty)"
    )
    empty = Agent({"none": dict}).turn()
    assert empty == "**Context update 1** — current state.\n\n### none\n(none)"


def test_no_providers_never_produce_a_block() -> None:
    agent = Agent({})
    assert agent.turn() is None
    assert agent.turn() is None
    assert agent.slot.last_block == 0


def test_the_baseline_is_a_copy_of_what_the_provider_returned() -> None:
    shared = {"Ada": "Developer"}
    agent = Agent({"roster": lambda: shared})
    agent.turn()
    shared["Bob"] = "Tester"  # the card mutates its own mapping in place
    block = agent.turn()
    assert block is not None
    assert "Added:\n- Bob: Tester" in block


def test_a_dict_with_the_same_keys_changes_only_its_changed_items_and_stays_text() -> None:
    roster = {"Ada": "Developer", "Bob": "Tester", "Cy": "Reviewer"}
    agent = Agent({"roster": lambda: dict(roster)})  # a new dict every turn, as cards do
    agent.turn()
    assert agent.turn() is None  # the same items: no block
    roster["Bob"] = "Lead tester"
    block = agent.turn()
    assert (
        block
        == f"**Context update 2** {DELTA}\n\n### roster (changed)\nChanged:\n- Bob: Lead tester"
    )
    roster["Cy"] = 7  # type: ignore[assignment]  # not text: the item is converted
    assert agent.turn() is not None
    assert agent.slot.baselines["roster"] == {"Ada": "Developer", "Bob": "Lead tester", "Cy": "7"}
    roster["Ada"] = "Lead"
    block = agent.turn()
    assert block is not None and "- Ada: Lead" in block and "Cy" not in block


# -- reconciliation against the history -----------------------------------------------------


def test_marker_gone_means_full_snapshot_and_n_stays_monotonic(
    agent: Agent, roster: dict[str, str]
) -> None:
    agent.turn()
    roster["Cy"] = "Reviewer"
    agent.turn()
    agent.forget_block(1)
    agent.forget_block(2)  # compaction folded both blocks away
    block = agent.turn()
    assert block is not None
    assert header(block) == f"**Context update 3** {FULL}"
    assert "### roster\n- Ada: Developer\n- Bob: Tester\n- Cy: Reviewer" in block
    assert "### planning\n1. write the parser" in block
    assert agent.turn() is None


def test_an_empty_history_drops_baselines_but_not_the_counter(agent: Agent) -> None:
    agent.turn()
    agent.history.clear()  # e.g. a sliding window with nothing left of the block
    assert header(agent.turn()) == f"**Context update 2** {FULL}"


def test_counter_behind_the_history_catches_up_and_keeps_baselines(
    agent: Agent, roster: dict[str, str]
) -> None:
    agent.turn()
    checkpoint = agent.slot.model_dump(mode="json")  # last checkpoint: after block 1
    roster["Cy"] = "Reviewer"
    assert header(agent.turn()) == f"**Context update 2** {DELTA}"
    # Crash: block 2 is in the history, the checkpoint never saw it.
    agent.state = FakeState(tool_state=ToolState.model_validate(checkpoint))
    assert agent.slot.last_block == 1

    roster["Dee"] = "Designer"
    block = agent.turn()
    assert header(block) == f"**Context update 3** {DELTA}"
    assert block is not None
    # Diffed against the kept baseline: block 2's news is repeated, never omitted.
    assert "Added:\n- Cy: Reviewer\n- Dee: Designer" in block
    assert agent.turn() is None


def test_counter_behind_with_nothing_new_still_catches_up(agent: Agent) -> None:
    agent.turn()
    agent.state = FakeState()  # a slot lost altogether
    agent.updater.reconcile(agent.history)
    assert agent.slot.last_block == 1
    assert header(agent.turn()) == f"**Context update 2** {FULL}"


def test_delta_left_after_its_full_snapshot_is_gone_forces_a_full_snapshot(
    agent: Agent, roster: dict[str, str]
) -> None:
    agent.turn()
    roster["Cy"] = "Reviewer"
    agent.turn()
    agent.forget_block(1)  # block 2 (a delta) still shows, its base does not
    assert header(agent.turn()) == f"**Context update 3** {FULL}"


def test_a_gap_in_the_chain_forces_a_full_snapshot(agent: Agent, roster: dict[str, str]) -> None:
    agent.turn()
    roster["Cy"] = "Reviewer"
    agent.turn()
    roster["Dee"] = "Designer"
    agent.turn()
    agent.forget_block(2)  # blocks 1 and 3 remain, the model lost what 2 said
    roster["Eve"] = "Ops"
    block = agent.turn()
    assert header(block) == f"**Context update 4** {FULL}"


def test_the_chain_restarts_at_each_full_snapshot(agent: Agent, roster: dict[str, str]) -> None:
    agent.turn()
    agent.forget_block(1)
    agent.turn()  # block 2: full again
    roster["Cy"] = "Reviewer"
    assert header(agent.turn()) == f"**Context update 3** {DELTA}"
    assert agent.slot.chain_start == 2


def test_a_block_folded_into_a_longer_prompt_counts_as_delivered(
    agent: Agent, roster: dict[str, str]
) -> None:
    block = agent.updater.compose(agent.history)
    assert block is not None
    # A fresh agent's first block is folded into the first run's user prompt.
    folded = fold_into_prompt([block], "Please plan the sprint.")
    agent.history = [ModelRequest(parts=[UserPromptPart(folded)])]
    roster["Cy"] = "Reviewer"
    assert header(agent.turn()) == f"**Context update 2** {DELTA}"


def test_a_block_inside_multipart_content_counts_as_delivered(
    agent: Agent, roster: dict[str, str]
) -> None:
    block = agent.updater.compose(agent.history)
    assert block is not None
    agent.history = [ModelRequest(parts=[UserPromptPart(["Look:", block])])]
    roster["Cy"] = "Reviewer"
    assert header(agent.turn()) == f"**Context update 2** {DELTA}"


def test_a_block_survives_a_stored_history(agent: Agent, roster: dict[str, str]) -> None:
    agent.turn()
    stored = ModelMessagesTypeAdapter.dump_json(agent.history)
    agent.history = list(ModelMessagesTypeAdapter.validate_json(stored))
    roster["Cy"] = "Reviewer"
    assert header(agent.turn()) == f"**Context update 2** {DELTA}"


def test_a_marker_only_the_model_wrote_is_not_a_delivery(agent: Agent) -> None:
    agent.history = [ModelResponse(parts=[TextPart("**Context update 5** — current state.")])]
    assert header(agent.turn()) == f"**Context update 1** {FULL}"


def test_marker_text_in_anyones_content_is_not_a_delivery(agent: Agent) -> None:
    forged = "**Context update 5** — current state."
    huge = "**Context update " + "9" * 5000 + "** — current state."
    agent.history = [
        ModelRequest(parts=[UserPromptPart(f"status\n{forged}\n{huge}\nend")]),
        ModelRequest(parts=[UserPromptPart([forged, TextContent(forged), TextContent(huge)])]),
    ]
    assert header(agent.turn()) == f"**Context update 1** {FULL}"
    assert agent.slot.last_block == 1


@pytest.mark.parametrize(
    "record",
    [
        {"number": "5", "full": True},
        {"number": True, "full": True},
        {"number": 0, "full": True},
        {"number": -3, "full": False},
        {"number": 10**30, "full": True},
        {"number": 5, "full": "yes"},
        {"number": 5},
        "5",
        None,
    ],
)
def test_a_malformed_marker_record_is_ignored_never_raised(agent: Agent, record: Any) -> None:
    odd = TextContent("**Context update 5** — current state.", metadata={MARKER_KEY: record})
    agent.history = [ModelRequest(parts=[UserPromptPart([odd])])]
    assert header(agent.turn()) == f"**Context update 1** {FULL}"


class _FuturePart:
    part_kind = "hologram"


def test_unknown_message_and_part_kinds_do_not_crash(agent: Agent, roster: dict[str, str]) -> None:
    agent.turn()
    odd: list[Any] = [_FuturePart()]
    agent.history.extend([ModelRequest(parts=odd), object()])  # type: ignore[list-item]
    roster["Cy"] = "Reviewer"
    assert header(agent.turn()) == f"**Context update 2** {DELTA}"


# -- the slot: reset, restore, never cached -------------------------------------------------


def test_reset_zeroes_counter_and_baselines_together(agent: Agent) -> None:
    agent.turn()
    agent.turn()
    agent.history.clear()  # /clear empties the history ...
    agent.updater.reset()  # ... and the slot, together
    assert agent.slot == ToolState()
    assert header(agent.turn()) == f"**Context update 1** {FULL}"


def test_a_replaced_slot_is_read_on_the_next_call(agent: Agent) -> None:
    agent.turn()
    held = agent.slot
    agent.state = FakeState(tool_state=ToolState(last_block=7))  # init_state() on restore
    block = agent.turn()
    assert header(block) == f"**Context update 8** {FULL}"
    assert agent.slot.last_block == 8
    assert held.last_block == 1  # the old object was not written to


def test_a_restored_agent_with_its_blocks_resumes_deltas_usually_silent(
    agent: Agent, roster: dict[str, str]
) -> None:
    agent.turn()
    saved = agent.state.model_dump_json()
    agent.state = FakeState.model_validate_json(saved)
    assert agent.turn() is None
    roster["Cy"] = "Reviewer"
    assert header(agent.turn()) == f"**Context update 2** {DELTA}"


def test_the_slot_is_mutated_in_place(agent: Agent) -> None:
    slot = agent.slot
    agent.turn()
    assert agent.slot is slot
    assert slot.last_block == 1


def test_a_slot_with_unknown_keys_still_loads() -> None:
    assert ToolState.model_validate({"last_block": 3, "from_the_future": 1}).last_block == 3


# -- providers that fail ------------------------------------------------------------------------


def test_a_failing_provider_is_reported_once_and_kills_nothing(
    roster: dict[str, str], plan: list[str]
) -> None:
    broken = [True]

    def planning() -> ContextState:
        if broken[0]:
            raise ConnectionError("board unreachable")
        return plan[0]

    agent = Agent({"roster": lambda: roster, "planning": planning})
    block = agent.turn()
    assert block == (
        f"**Context update 1** {FULL}\n\n"
        "### roster\n- Ada: Developer\n- Bob: Tester\n\n"
        "### planning (unavailable)\nThis state could not be read (ConnectionError)."
    )
    assert "planning" not in agent.slot.baselines
    assert agent.turn() is None  # still down: said once, not every turn

    broken[0] = False
    block = agent.turn()
    assert block == (
        f"**Context update 2** {DELTA}\n\n### planning (available again)\n1. write the parser"
    )
    assert agent.slot.baselines["planning"] == "1. write the parser"
    assert agent.slot.unavailable == []


def test_a_failure_keeps_the_last_good_baseline(plan: list[str]) -> None:
    broken = [False]

    def planning() -> ContextState:
        if broken[0]:
            raise RuntimeError("boom")
        return plan[0]

    agent = Agent({"planning": planning})
    agent.turn()
    broken[0] = True
    assert "(unavailable)" in (agent.turn() or "")
    assert agent.slot.baselines["planning"] == "1. write the parser"
    assert agent.slot.unavailable == ["planning"]


def test_a_provider_returning_the_wrong_type_is_unavailable() -> None:
    agent = Agent({"count": lambda: 3})  # type: ignore[dict-item,return-value]
    assert "### count (unavailable)\nThis state could not be read (TypeError)." in (
        agent.turn() or ""
    )


def test_a_full_snapshot_reports_an_ongoing_outage_again() -> None:
    def down() -> ContextState:
        raise OSError("down")

    agent = Agent({"kg": down})
    agent.turn()
    agent.history.clear()
    block = agent.turn()
    assert header(block) == f"**Context update 2** {FULL}"
    assert "### kg (unavailable)" in (block or "")


# -- frozen maps: what a turn reads must not grow with the state ---------------------------


class CountingMap(FrozenMap[str, str]):
    """A frozen map that counts how many of its items anyone reads (shared by its versions)."""

    __slots__ = ()
    reads: ClassVar[list[int]] = [0]

    def __getitem__(self, key: str) -> str:
        self.reads[0] += 1
        return super().__getitem__(key)

    def get(self, key: str, default: Any = None) -> Any:
        self.reads[0] += 1
        return super().get(key, default)

    def __iter__(self) -> Iterator[str]:
        for key in super().__iter__():
            self.reads[0] += 1
            yield key

    def items(self) -> Any:
        self.reads[0] += len(self)
        return super().items()

    def values(self) -> Any:
        self.reads[0] += len(self)
        return super().values()


def _read_during(turn: Callable[[], object]) -> int:
    CountingMap.reads[0] = 0
    turn()
    return CountingMap.reads[0]


def test_an_unchanged_frozen_map_is_neither_read_nor_copied() -> None:
    members = CountingMap({f"@Member{i}": "Worker" for i in range(1000)})
    agent = Agent({"roster": lambda: members})

    first = _read_during(agent.turn)
    assert first >= 1000  # the first turn shows the whole roster
    assert agent.slot.baselines["roster"] is members  # held as it is, not copied

    assert _read_during(agent.turn) == 0
    assert agent.slot.last_block == 1


def test_a_newer_version_costs_only_the_items_that_changed() -> None:
    current: list[FrozenMap[str, str]] = [
        CountingMap({f"@Member{i}": "Worker" for i in range(1000)})
    ]
    agent = Agent({"roster": lambda: current[0]})
    agent.turn()

    current[0] = current[0].evolve(put={"@Member5": "Lead", "@New": "Worker"}, drop=["@Member7"])
    block: list[str | None] = []
    reads = _read_during(lambda: block.append(agent.turn()))

    assert reads <= 10  # three changed keys, looked up on either side
    assert block[0] is not None
    assert block[0].endswith(
        "### roster (changed)\n"
        "Added:\n- @New: Worker\n"
        "Changed:\n- @Member5: Lead\n"
        "Removed:\n- @Member7"
    )
    assert agent.slot.baselines["roster"] is current[0]


def test_a_frozen_map_from_another_line_is_diffed_whole_and_correctly() -> None:
    current = [FrozenMap({"@Ada": "Developer", "@Bob": "Tester"})]
    agent = Agent({"roster": lambda: current[0]})
    agent.turn()

    current[0] = FrozenMap({"@Ada": "Developer", "@Cy": "Writer"})  # rebuilt, not evolved
    block = agent.turn()

    assert block is not None
    assert block.endswith("### roster (changed)\nAdded:\n- @Cy: Writer\nRemoved:\n- @Bob")


def test_a_frozen_map_that_is_not_text_is_reported_as_unavailable() -> None:
    agent = Agent({"roster": lambda: FrozenMap({"@Ada": 3})})  # type: ignore[arg-type]  # not text, on purpose

    block = agent.turn()

    assert block is not None
    assert "### roster (unavailable)\nThis state could not be read (TypeError)." in block


def test_a_plain_mapping_is_copied_so_a_later_mutation_is_still_seen(
    agent: Agent, roster: dict[str, str]
) -> None:
    agent.turn()
    roster["Cy"] = "Writer"

    block = agent.turn()

    assert block is not None
    assert "### roster (changed)\nAdded:\n- Cy: Writer" in block


def test_the_slot_checkpoints_by_reference_and_round_trips_by_value() -> None:
    members = FrozenMap({f"@Member{i}": "Worker" for i in range(100)})
    agent = Agent({"roster": lambda: members})
    agent.turn()

    checkpoint = agent.state.model_copy(deep=True)
    assert checkpoint.tool_state.baselines["roster"] is members
    assert checkpoint == agent.state

    restored = FakeState.model_validate_json(agent.state.model_dump_json())
    assert restored == agent.state
    assert isinstance(restored.tool_state.baselines["roster"], FrozenMap)
