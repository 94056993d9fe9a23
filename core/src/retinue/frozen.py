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
from typing import Any, Generic, TypeVar

from pydantic import GetCoreSchemaHandler
from pydantic_core import core_schema

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
W = TypeVar("W")
T = TypeVar("T")

#: How many versions of one line keep their changed keys; an older reader gets None.
HISTORY_LIMIT = 256

_ABSENT = object()


class _Lineage:
    """The keys each version of one line of maps touched, for the last `HISTORY_LIMIT`."""

    __slots__ = ("_changes", "_head", "_lock")

    def __init__(self) -> None:
        self._changes: dict[int, tuple[Any, ...]] = {}
        self._head = 0
        self._lock = threading.Lock()

    def advance(self, version: int, keys: tuple[Any, ...]) -> bool:
        """Record `version + 1`; False when `version` is not the newest (a fork)."""
        with self._lock:
            if version != self._head:
                return False
            self._head = version + 1
            self._changes[self._head] = keys
            while len(self._changes) > HISTORY_LIMIT:
                del self._changes[next(iter(self._changes))]
            return True

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


class FrozenMap(Mapping[K, V], Generic[K, V]):
    """A mapping that never changes; `evolve` makes the next version.

    Copies (`copy`, `deepcopy`) are the map itself, so a state checkpoint that holds one
    costs nothing to take or to compare. Pickling or validating from a dict starts a new
    line (the history of changes stays in this process). Pydantic fields may be typed
    `FrozenMap[str, str]`: they accept a dict or a map and serialize as a dict.
    """

    __slots__ = ("__weakref__", "_data", "_lineage", "_memo", "_owner", "_tag", "_version")

    def __init__(self, items: Mapping[K, V] | Iterable[tuple[K, V]] = ()) -> None:
        self._data: dict[K, V] = dict(items)
        self._lineage = _Lineage()
        self._version = 0
        self._tag: Hashable = None
        self._owner = True
        self._memo: dict[Hashable, Any] = {}

    @classmethod
    def _make(
        cls, data: dict[Any, Any], lineage: _Lineage, version: int, tag: Hashable, owner: bool
    ) -> FrozenMap[Any, Any]:
        made: FrozenMap[Any, Any] = cls.__new__(cls)
        made._data = data
        made._lineage = lineage
        made._version = version
        made._tag = tag
        made._owner = owner
        made._memo = {}
        return made

    # ------------------------------------------------------------------ mapping
    def __getitem__(self, key: K) -> V:
        return self._data[key]

    def __iter__(self) -> Iterator[K]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, key: object) -> bool:
        return key in self._data

    def get(self, key: K, default: Any = None) -> Any:
        return self._data.get(key, default)

    def keys(self) -> KeysView[K]:
        return self._data.keys()

    def values(self) -> ValuesView[V]:
        return self._data.values()

    def items(self) -> ItemsView[K, V]:
        return self._data.items()

    def __eq__(self, other: object) -> bool:
        if other is self:
            return True
        if isinstance(other, FrozenMap):
            return self._data == other._data
        if isinstance(other, Mapping):
            return self._data == dict(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"FrozenMap({self._data!r})"

    def __copy__(self) -> FrozenMap[K, V]:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> FrozenMap[K, V]:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self._data,))

    # ------------------------------------------------------------------ versions
    @property
    def version(self) -> int:
        """How many changes this line has seen; 0 for a map made from scratch."""
        return self._version

    def evolve(self, put: Mapping[K, V] | None = None, drop: Iterable[K] = ()) -> FrozenMap[K, V]:
        """The next version: `drop` removed, then `put` set; this map itself when nothing changes.

        Costs one copy of the items for the writer; every reader then pays only for the keys
        that changed (`changed_since`).
        """
        data = self._data
        touched = [key for key in drop if key in data]
        updates = put or {}
        touched.extend(k for k, v in updates.items() if k not in data or data[k] != v)
        if not touched:
            return self
        new = dict(data)
        for key in drop:
            new.pop(key, None)
        new.update(updates)
        keys = tuple(dict.fromkeys(touched))
        if self._owner and self._lineage.advance(self._version, keys):
            return self._make(new, self._lineage, self._version + 1, self._tag, True)
        return self._make(new, _Lineage(), 0, None, True)  # evolved from an old version

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
        theirs = other._data if isinstance(other, FrozenMap) else other  # noqa: SLF001 (same class)
        mine = self._data
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

    def derive(self, key: Hashable, fn: Callable[[V], W]) -> FrozenMap[K, W]:
        """The same keys with `fn` applied to each value, made once per map and `key`.

        `fn` must depend on the value alone: maps derived with the same `key` from versions
        of one line then differ only at the keys the line changed, so `changed_since`
        between them stays O(change).
        """
        tag = (self._tag, key)

        def build(source: FrozenMap[K, V]) -> FrozenMap[K, W]:
            values = {k: fn(v) for k, v in source._data.items()}
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
