"""`ContextUpdater`: turns the LLM_CONTEXT providers into at most one block per run.

Volatile team state stays out of the system prompt (which must stay byte-identical for the
prompt cache); instead, before a run, the agent appends the block `compose()` returns: a full
snapshot when no baselines survive, else only what changed since the last block delivered.

The baselines and the counter live in the agent's `ToolState` slot, which this engine reads
through a getter on every call: a restore replaces the whole state object, so a held
reference would silently go stale.

What a turn costs here must not grow with the state: a provider that answers with the same
`FrozenMap` as last time costs one identity check, and a newer version of that map costs
only its changed keys. Plain mappings are copied (into a `FrozenMap`) and compared whole.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import compress
from operator import ne
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from retinue.frozen import FrozenMap
from retinue.tools import rendering
from retinue.tools.markers import ContextMarker, MarkerIndex, block_content, marker_line
from retinue.tools.state import Snapshot, ToolState

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage, TextContent

    from retinue.tools.channels import ContextProvider

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class _Failure:
    """A provider raised (or returned something that is not a `ContextState`)."""

    error: Exception


class ContextUpdater:
    """Composes context-update blocks for one agent from its providers and its slot."""

    def __init__(
        self,
        providers: Mapping[str, ContextProvider],
        state_getter: Callable[[], ToolState],
    ) -> None:
        self._providers = dict(providers)
        self._state_getter = state_getter
        self._markers = MarkerIndex()

    @property
    def providers(self) -> Mapping[str, ContextProvider]:
        """The named providers, in the order their sections appear."""
        return MappingProxyType(self._providers)

    def reconcile(self, history: Sequence[ModelMessage]) -> ToolState:
        """Bring the slot in line with the markers visible in `history`; returns the slot.

        - A counter behind the highest visible marker (a crash between the append and the
          checkpoint) catches up to it; the baselines are kept, so the next block repeats
          what the lost blocks said rather than omitting it.
        - Baselines are trusted only while every block from the full snapshot they descend
          from to the last one delivered is still visible; otherwise (compaction, a trim, a
          cleared history) they are all dropped and the next block is a full snapshot. The
          counter is never lowered here, so N stays monotonic.
        """
        slot = self._state_getter()
        visible = set(self._markers.numbers(history))
        highest = max(visible, default=0)
        slot.last_block = max(slot.last_block, highest)
        if slot.has_baselines and not visible.issuperset(
            range(slot.chain_start, slot.last_block + 1)
        ):
            slot.drop_baselines()
        return slot

    def compose(self, history: Sequence[ModelMessage]) -> TextContent | None:
        """The block to append before the next run, or None when there is nothing new.

        Reconciles, reads every provider, diffs against the baselines and, only when a block
        is produced, advances the counter and stores the new baselines in the slot. The block
        is a `TextContent` whose metadata carries its marker (see `retinue.tools.markers`);
        message fences quoted in its sections are escaped, so state that agents wrote cannot
        pass for a message either.
        """
        slot = self.reconcile(history)
        full = not slot.has_baselines
        baselines: dict[str, Snapshot] = {} if full else dict(slot.baselines)
        unavailable: set[str] = set() if full else set(slot.unavailable)
        sections: list[str] = []

        for name, provider in self._providers.items():
            reading = _read(name, provider, baselines.get(name))
            if isinstance(reading, _Failure):
                # Said once per outage; the baseline stays as the model last saw it.
                if name not in unavailable:
                    sections.append(_unavailable_section(name, reading))
                    unavailable.add(name)
                continue
            if full:
                sections.append(rendering.section(name, rendering.render_full(reading)))
            elif name in unavailable:
                body = rendering.render_full(reading)
                sections.append(rendering.section(name, body, rendering.AVAILABLE_AGAIN))
            elif name not in baselines:
                body = rendering.render_full(reading)
                sections.append(rendering.section(name, body, rendering.NEW))
            else:
                delta = rendering.render_delta(baselines[name], reading)
                if delta is not None:
                    label, body = delta
                    sections.append(rendering.section(name, body, label))
            baselines[name] = reading
            unavailable.discard(name)

        # Providers the model was told about that this agent no longer has (a restore with
        # a different card set): say so instead of leaving stale state standing.
        for name in [*baselines, *sorted(unavailable - baselines.keys())]:
            if name not in self._providers:
                sections.append(rendering.section(name, "No longer provided.", rendering.REMOVED))
                baselines.pop(name, None)
                unavailable.discard(name)

        if not sections:
            return None
        number = slot.last_block + 1
        slot.last_block = number
        if full:
            slot.chain_start = number
        slot.baselines = baselines
        slot.unavailable = sorted(unavailable)
        from retinue.llm.framing import neutralize

        text = neutralize("\n\n".join([marker_line(number, full=full), *sections]))
        return block_content(text, ContextMarker(number, full))

    def reset(self) -> None:
        """Zero the counter and the baselines together (the agent's `/clear`).

        The one legitimate zeroing: the caller empties the history at the same time, so the
        next block is `**Context update 1** — current state.`
        """
        self._state_getter().clear()


def _read(name: str, provider: ContextProvider, baseline: Snapshot | None) -> Snapshot | _Failure:
    """Call a provider; copy a mutable answer, so later mutation by the card cannot leak in.

    A `FrozenMap` cannot change, so it is kept as it is; that its items are text is checked
    once per map, not once per reader, and only at the keys changed since `baseline` (which
    passed the same check) when the map is a newer version of it.
    """
    try:
        value: object = provider()
        if isinstance(value, str):
            return value
        if isinstance(value, FrozenMap):
            if not value.memo(_TEXT_CHECKED, lambda items: _all_text(items, baseline)):
                raise TypeError(
                    f"context provider {name!r} returned a FrozenMap whose keys and values "
                    "are not all str"
                )
            return value
        if isinstance(value, Mapping):
            return _plain_snapshot(value, baseline)
        raise TypeError(
            f"context provider {name!r} returned {type(value).__name__}, "
            "expected str or Mapping[str, str]"
        )
    except Exception as exc:
        logger.warning("context provider %r could not be read: %s", name, type(exc).__name__)
        logger.debug("traceback of context provider %r", name, exc_info=exc)
        return _Failure(exc)


_TEXT_CHECKED = "retinue.context_text"
"""Memo key of a `FrozenMap` whose keys and values were checked to be `str`."""


def _plain_snapshot(value: Mapping[Any, Any], baseline: Snapshot | None) -> FrozenMap[str, str]:
    """A mapping a provider answered, as a `FrozenMap` of text (a copy: it may change later).

    The common answer is a dict of text with the keys of the last one, in the same order,
    and a few values changed: it is compared with the baseline at C speed, and becomes the
    baseline itself when equal, or its next version (recording the changed keys, so the
    delta reads only those) when not. Only the changed values need checking: the baseline's
    were. Any other dict of text is copied once; anything else converted item by item.
    """
    if type(value) is not dict:
        return FrozenMap({str(key): str(item) for key, item in value.items()})
    if (
        isinstance(baseline, FrozenMap)
        and len(value) == len(baseline)
        and list(value) == list(baseline.keys())
    ):
        changed = list(compress(value, map(ne, value.values(), baseline.values())))
        if not changed:
            return baseline
        if all(type(value[key]) is str for key in changed):
            snapshot = baseline.evolve(put={key: value[key] for key in changed})
            # what the delta needs, known now whether or not the line records it (it does not
            # when this baseline was evolved before: a checkpoint restored, say)
            rendering.note_changes(snapshot, baseline, changed)
            return snapshot
    if _all_str(value):
        return FrozenMap(value)  # one copy; no conversion needed
    return FrozenMap({str(key): str(item) for key, item in value.items()})


def _all_str(items: dict[Any, Any]) -> bool:
    """Whether every key and value is exactly `str` (checked at C speed, no Python loop)."""
    return {*map(type, items), *map(type, items.values())} <= {str}


def _all_text(items: FrozenMap[Any, Any], baseline: Snapshot | None) -> bool:
    keys = items.changed_since(baseline) if isinstance(baseline, FrozenMap) else None
    if keys is None:
        return all(isinstance(k, str) and isinstance(v, str) for k, v in items.items())
    return all(isinstance(k, str) and isinstance(items.get(k, ""), str) for k in keys)


def _unavailable_section(name: str, failure: _Failure) -> str:
    body = f"This state could not be read ({type(failure.error).__name__})."
    return rendering.section(name, body, rendering.UNAVAILABLE)
