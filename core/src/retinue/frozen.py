"""`FrozenMap`: an immutable mapping that remembers which keys its later versions changed.

It belongs to no layer (it imports nothing of retinue), so the tools layer can use it
without loading the actor runtime; `retinue.actors` puts it on the public face.

Team state is read by every agent on every turn and changes rarely. Published as frozen
maps, it can be shared instead of copied: a reader that gets the very object it saw last
time knows nothing changed without looking inside (O(1)), and a reader holding an older
version of the same line asks `changed_since` for the keys touched in between instead of
comparing every item (O(change)). Values computed from a map (`derive`, `memo`) are made
once per map and shared by every reader.
"""

from __future__ import annotations

import threading
from collections.abc import (
    Callable,
    Hashable,
    ItemsView,
    Iterable,
    Iterator,
    KeysView,
    Mapping,
    ValuesView,
)
from typing import Any, Generic, TypeVar, cast

from pydantic import GetCoreSchemaHandler
from pydantic_core import core_schema

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
W = TypeVar("W")
T = TypeVar("T")

#: How many versions of one line keep their changed keys; an older reader gets None.
HISTORY_LIMIT = 256

#: How many versions nobody read a line lets pile up before it builds the newest anyway
#: (at least; a line of n items lets n pile up, so a build's copy is paid for by n changes).
UNREAD_LIMIT = 64

_ABSENT = object()

_Delta = tuple[tuple[Any, ...], dict[Any, Any]]
"""What one version changed: the keys dropped, then the items put."""


class _Lineage:
    """One line of maps: the keys each version touched (for the last `HISTORY_LIMIT`), and
    the items of the newest version, which a change updates in place unless a built map
    holds them (`shared`); `lock` guards both."""

    __slots__ = ("_changes", "head", "latest", "lock", "shared", "unread")

    def __init__(self, latest: dict[Any, Any]) -> None:
        self._changes: dict[int, tuple[Any, ...]] = {}
        self.head = 0
        self.latest = latest
        self.shared = True
        #: Versions made since the newest one was last built.
        self.unread = 0
        self.lock = threading.Lock()

    def advance(self, keys: tuple[Any, ...]) -> int:
        """Record the next version, which touched `keys`; its number. With `lock` held."""
        self.head += 1
        self._changes[self.head] = keys
        while len(self._changes) > HISTORY_LIMIT:
            del self._changes[next(iter(self._changes))]
        return self.head

    def keys_between(self, old: int, new: int) -> tuple[Any, ...] | None:
        """Keys touched after version `old` up to `new`, or None when no longer known."""
        if old > new:
            return None
        touched: dict[Any, None] = {}
        for version in range(old + 1, new + 1):
            keys = self._changes.get(version)
            if keys is None:
                return None
            touched.update(dict.fromkeys(keys))
        return tuple(touched)


def _touched(data: Mapping[Any, Any], put: Mapping[Any, Any], drop: tuple[Any, ...]) -> list[Any]:
    """The keys `drop` and `put` would change in `data`."""
    touched = [key for key in drop if key in data]
    touched.extend(k for k, v in put.items() if k not in data or data[k] != v)
    return touched


def _apply(data: dict[Any, Any], delta: _Delta) -> None:
    drop, put = delta
    for key in drop:
        data.pop(key, None)
    data.update(put)


class FrozenMap(Mapping[K, V], Generic[K, V]):
    """A mapping that never changes; `evolve` makes the next version.

    Copies (`copy`, `deepcopy`) are the map itself, so a state checkpoint that holds one
    costs nothing to take or to compare. Pickling or validating from a dict starts a new
    line (the history of changes stays in this process). Pydantic fields may be typed
    `FrozenMap[str, str]`: they accept a dict or a map and serialize as a dict.

    A version is built (its items copied) when it is first read, not when it is made: a
    writer making many versions nobody reads in between (a team hiring agent after agent)
    pays for the keys it changes, not for the whole map each time.
    """

    __slots__ = (
        "__weakref__",
        "_base",
        "_data",
        "_delta",
        "_lineage",
        "_memo",
        "_owner",
        "_tag",
        "_version",
    )

    def __init__(self, items: Mapping[K, V] | Iterable[tuple[K, V]] = ()) -> None:
        self._data: dict[K, V] | None = dict(items)
        self._lineage = _Lineage(self._data)
        self._version = 0
        self._tag: Hashable = None
        self._owner = True
        self._memo: dict[Hashable, Any] = {}
        #: Until built: the version this one was made from, and what it changed there.
        self._base: FrozenMap[K, V] | None = None
        self._delta: _Delta | None = None

    @classmethod
    def _make(
        cls,
        data: dict[Any, Any] | None,
        lineage: _Lineage,
        version: int,
        tag: Hashable,
        owner: bool,
    ) -> FrozenMap[Any, Any]:
        made: FrozenMap[Any, Any] = cls.__new__(cls)
        made._data = data
        made._lineage = lineage
        made._version = version
        made._tag = tag
        made._owner = owner
        made._memo = {}
        made._base = None
        made._delta = None
        return made

    # ------------------------------------------------------------------ mapping
    def __getitem__(self, key: K) -> V:
        data = self._data
        return (data if data is not None else self._build())[key]

    def __iter__(self) -> Iterator[K]:
        data = self._data
        return iter(data if data is not None else self._build())

    def __len__(self) -> int:
        data = self._data
        return len(data if data is not None else self._build())

    def __contains__(self, key: object) -> bool:
        data = self._data
        return key in (data if data is not None else self._build())

    def get(self, key: K, default: Any = None) -> Any:
        data = self._data
        return (data if data is not None else self._build()).get(key, default)

    def keys(self) -> KeysView[K]:
        return self._items().keys()

    def values(self) -> ValuesView[V]:
        return self._items().values()

    def items(self) -> ItemsView[K, V]:
        return self._items().items()

    def __eq__(self, other: object) -> bool:
        if other is self:
            return True
        if isinstance(other, FrozenMap):
            return self._items() == other._items()
        if isinstance(other, Mapping):
            return self._items() == dict(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"FrozenMap({self._items()!r})"

    def __copy__(self) -> FrozenMap[K, V]:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> FrozenMap[K, V]:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self._items(),))

    # ------------------------------------------------------------------ building
    @property
    def built(self) -> bool:
        """Whether this version's items have been made (it was read, or is the first)."""
        return self._data is not None

    def _items(self) -> dict[K, V]:
        data = self._data
        return data if data is not None else self._build()

    def _build(self) -> dict[K, V]:
        """This version's items, made on first read: the line's newest items when it is the
        newest version, else a built ancestor's items with the changes since replayed."""
        lineage = self._lineage
        with lineage.lock:
            data = self._data
            if data is not None:  # another reader built it meanwhile
                return data
            if lineage.head == self._version and not lineage.shared:
                data = lineage.latest
                lineage.shared = True  # the next change copies them first
                lineage.unread = 0
            else:
                deltas: list[_Delta] = []
                source: FrozenMap[K, V] = self  # back to the nearest built version
                while (built := source._data) is None:
                    deltas.append(cast("_Delta", source._delta))
                    source = cast("FrozenMap[K, V]", source._base)
                data = dict(built)
                for delta in reversed(deltas):
                    _apply(data, delta)
            self._data = data
            self._base = self._delta = None  # older versions may go now
        return data

    # ------------------------------------------------------------------ versions
    @property
    def version(self) -> int:
        """How many changes this line has seen; 0 for a map made from scratch."""
        return self._version

    def evolve(self, put: Mapping[K, V] | None = None, drop: Iterable[K] = ()) -> FrozenMap[K, V]:
        """The next version: `drop` removed, then `put` set; this map itself when nothing changes.

        From the newest version of a line this costs the keys that changed: the new version
        is built when first read (`built`), by whoever reads it. From an older version (or a
        derived map) it copies the items and starts a line of its own.
        """
        updates = dict(put or {})
        gone = tuple(drop)
        lineage = self._lineage
        if self._owner:
            with lineage.lock:
                if lineage.head == self._version:
                    return self._next(updates, gone)
        data = self._items()
        if not _touched(data, updates, gone):
            return self
        new = dict(data)
        _apply(new, (gone, updates))
        return self._make(new, _Lineage(new), 0, None, True)  # evolved from an old version

    def _next(self, put: dict[K, V], drop: tuple[K, ...]) -> FrozenMap[K, V]:
        """`evolve` from the newest version, with the line's lock held."""
        lineage = self._lineage
        touched = _touched(lineage.latest, put, drop)
        if not touched:
            return self
        if lineage.shared:  # a built version holds the newest items: they stay as they are
            lineage.latest = dict(lineage.latest)
            lineage.shared = False
        _apply(lineage.latest, (drop, put))
        version = lineage.advance(tuple(dict.fromkeys(touched)))
        made: FrozenMap[K, V] = self._make(None, lineage, version, self._tag, True)
        made._base, made._delta = self, (drop, put)
        lineage.unread += 1
        if lineage.unread > max(UNREAD_LIMIT, len(lineage.latest)):  # keep the chain short
            made._data, made._base, made._delta = lineage.latest, None, None
            lineage.shared = True
            lineage.unread = 0
        return made

    def changed_since(self, older: Mapping[Any, Any]) -> tuple[K, ...] | None:
        """The keys that may differ from `older`, or None when that is not known here.

        Known for an earlier version of this same line (or of a map derived from it the same
        way), as long as it is at most `HISTORY_LIMIT` versions behind.
        """
        if older is self:
            return ()
        # `older` is a FrozenMap too: its own class reads its fields
        if (
            not isinstance(older, FrozenMap)
            or older._lineage is not self._lineage  # noqa: SLF001
            or older._tag != self._tag  # noqa: SLF001
        ):
            return None
        return self._lineage.keys_between(older._version, self._version)  # noqa: SLF001

    def differing_keys(self, other: Mapping[Any, Any]) -> list[K]:
        """The keys whose items differ between this map and `other`, compared whole.

        This map's keys first (in its order: changed, or missing from `other`), then the
        keys only `other` has (in its order). For maps of unrelated lines, where
        `changed_since` knows nothing; one pass at C speed where the maps are equal.
        """
        theirs = other._items() if isinstance(other, FrozenMap) else other  # noqa: SLF001 (same class)
        mine = self._items()
        if mine == theirs:
            return []
        get = theirs.get
        keys: list[K] = [key for key, value in mine.items() if get(key, _ABSENT) != value]
        added = sum(1 for key in keys if key not in theirs)
        if len(theirs) > len(mine) - added:  # some keys of `other` are gone here
            keys.extend(key for key in theirs if key not in mine)
        return keys

    # ------------------------------------------------------------------ shared derivations
    def memo(self, key: Hashable, build: Callable[[FrozenMap[K, V]], T]) -> T:
        """`build(self)`, computed once per map and `key` and shared by every caller.

        Two threads may both build it; both then get the first value stored.
        """
        try:
            value: T = self._memo[key]
        except KeyError:
            value = self._memo.setdefault(key, build(self))
        return value

    def memo_once(self, key: Hashable, build: Callable[[FrozenMap[K, V]], T]) -> T:
        """`memo`, built once even by threads that miss it together: the later ones wait for
        the first build (what every agent reads at the start of its turn, after a change).

        Once built it is found without a lock; a first build holds one lock of this map and
        `key`, so builds for other maps or keys never wait for it.
        """
        try:
            value: T = self._memo[key]
        except KeyError:
            lock: threading.Lock = self.memo(("memo_once", key), lambda _: threading.Lock())
            with lock:  # whoever waited here finds the first build
                value = self.memo(key, build)
        return value

    def derive(self, key: Hashable, fn: Callable[[V], W]) -> FrozenMap[K, W]:
        """The same keys with `fn` applied to each value, made once per map and `key`.

        `fn` must depend on the value alone: maps derived with the same `key` from versions
        of one line then differ only at the keys the line changed, so `changed_since`
        between them stays O(change).
        """
        tag = (self._tag, key)

        def build(source: FrozenMap[K, V]) -> FrozenMap[K, W]:
            values = {k: fn(v) for k, v in source._items().items()}
            return source._make(values, source._lineage, source._version, tag, False)

        derived: FrozenMap[K, W] = self.memo(("derive", key), build)
        return derived

    # ------------------------------------------------------------------ pydantic
    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        args = getattr(source, "__args__", None) or (Any, Any)
        as_dict = handler.generate_schema(dict[args[0], args[1]])  # type: ignore[valid-type]
        from_dict = core_schema.no_info_after_validator_function(cls, as_dict)
        return core_schema.json_or_python_schema(
            json_schema=from_dict,
            python_schema=core_schema.union_schema(
                [core_schema.is_instance_schema(cls), from_dict]
            ),
            serialization=core_schema.plain_serializer_function_ser_schema(
                dict, return_schema=as_dict
            ),
        )
