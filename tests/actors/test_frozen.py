"""`FrozenMap`: shared instead of copied, and able to say which keys changed between versions."""

from __future__ import annotations

import copy
import pickle
import threading

import pytest
from pydantic import BaseModel
from retinue import FrozenMap
from retinue.frozen import HISTORY_LIMIT, UNREAD_LIMIT


def test_it_reads_like_a_dict_and_cannot_be_changed() -> None:
    items = FrozenMap({"@Ada": "Developer", "@Bob": "Tester"})

    assert items["@Ada"] == "Developer"
    assert items.get("@Cy") is None
    assert list(items) == ["@Ada", "@Bob"]
    assert len(items) == 2
    assert "@Bob" in items
    assert items == {"@Ada": "Developer", "@Bob": "Tester"}
    assert items == FrozenMap({"@Bob": "Tester", "@Ada": "Developer"})
    with pytest.raises(TypeError):
        items["@Cy"] = "Writer"  # type: ignore[index]
    with pytest.raises(TypeError):
        hash(items)


def test_copies_are_the_map_itself_so_checkpoints_share_it() -> None:
    items = FrozenMap({"a": "1"})

    assert copy.copy(items) is items
    assert copy.deepcopy(items) is items
    assert copy.deepcopy({"slot": items})["slot"] is items


def test_evolve_makes_the_next_version_and_leaves_this_one_alone() -> None:
    v0 = FrozenMap({"a": "1", "b": "2"})
    v1 = v0.evolve(put={"c": "3"}, drop=["a"])

    assert v0 == {"a": "1", "b": "2"}
    assert v1 == {"b": "2", "c": "3"}
    assert (v0.version, v1.version) == (0, 1)
    assert v0.evolve(put={"b": "2"}, drop=["zzz"]) is v0  # nothing changes: the same map


def test_changed_since_names_only_the_keys_touched_in_between() -> None:
    v0 = FrozenMap({f"k{i}": "x" for i in range(1000)})
    v1 = v0.evolve(put={"k5": "y"})
    v2 = v1.evolve(put={"new": "z"})
    v3 = v2.evolve(drop=["k7"])

    assert v3.changed_since(v3) == ()
    assert v3.changed_since(v2) == ("k7",)
    assert v3.changed_since(v0) == ("k5", "new", "k7")
    assert v0.changed_since(v3) is None  # newer than us: not derivable
    assert v3.changed_since({"k5": "y"}) is None  # a plain mapping: unknown
    assert v3.changed_since(FrozenMap(dict(v2))) is None  # another line


def test_an_old_version_evolved_again_starts_a_line_of_its_own() -> None:
    v0 = FrozenMap({"a": "1"})
    v1 = v0.evolve(put={"b": "2"})
    fork = v0.evolve(put={"c": "3"})

    assert fork.changed_since(v0) is None
    assert v1.changed_since(v0) == ("b",)


def test_versions_further_back_than_the_limit_are_no_longer_derivable() -> None:
    first = FrozenMap({"n": "0"})
    latest = first
    for n in range(1, HISTORY_LIMIT + 2):
        latest = latest.evolve(put={"n": str(n)})

    assert latest.changed_since(first) is None
    assert latest.version == HISTORY_LIMIT + 1


def test_derive_is_made_once_and_shares_the_line_of_changes() -> None:
    calls: list[str] = []

    def shout(value: str) -> str:
        calls.append(value)
        return value.upper()

    v0 = FrozenMap({"a": "x", "b": "y"})
    d0 = v0.derive("shout", shout)
    assert v0.derive("shout", shout) is d0
    assert d0 == {"a": "X", "b": "Y"}
    assert len(calls) == 2

    v1 = v0.evolve(put={"b": "z"})
    d1 = v1.derive("shout", shout)
    assert d1.changed_since(d0) == ("b",)
    assert d1.changed_since(v0) is None  # a derived map is not comparable with its source
    assert v1.derive("other", shout).changed_since(d0) is None


def test_memo_computes_once_even_when_threads_race() -> None:
    items = FrozenMap({"a": "1"})
    start = threading.Barrier(8)
    seen: list[object] = []

    def read() -> None:
        start.wait()
        seen.append(items.memo("key", lambda m: object()))

    threads = [threading.Thread(target=read) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    assert len({id(value) for value in seen}) == 1


def test_it_pickles_and_validates_as_plain_data() -> None:
    class Holder(BaseModel):
        items: FrozenMap[str, str]

    items = FrozenMap({"a": "1"})
    assert pickle.loads(pickle.dumps(items)) == items

    holder = Holder(items=items)
    assert holder.items is items
    assert holder.model_dump() == {"items": {"a": "1"}}
    assert holder.model_dump_json() == '{"items":{"a":"1"}}'
    again = Holder.model_validate_json(holder.model_dump_json())
    assert isinstance(again.items, FrozenMap)
    assert again == holder
    with pytest.raises(ValueError):
        Holder(items={"a": 1})


def test_differing_keys_lists_what_changed_between_unrelated_maps_in_order() -> None:
    old = FrozenMap({"a": "1", "b": "2", "c": "3"})
    new = FrozenMap({"a": "1", "b": "two", "d": "4"})
    assert new.differing_keys(old) == ["b", "d", "c"]  # changed and added, then removed
    assert new.differing_keys({"a": "1", "b": "two", "d": "4"}) == []
    assert FrozenMap().differing_keys({"x": "1"}) == ["x"]


def test_versions_nobody_reads_cost_the_writer_only_the_keys_it_changed() -> None:
    first = FrozenMap({f"@M{n}": n for n in range(1000)})
    versions = [first]
    for n in range(1000, 1050):
        versions.append(versions[-1].evolve(put={f"@M{n}": n}))

    assert [v.built for v in versions] == [True] + [False] * 50  # no copy of 1,000 items yet
    assert versions[20]["@M1019"] == 1019  # an older version, read: replayed from `first`
    assert "@M1020" not in versions[20]
    assert len(versions[-1]) == 1050 and list(versions[-1])[-1] == "@M1049"
    assert [v.built for v in versions].count(True) == 3  # only what was read


def test_a_line_nobody_reads_is_built_now_and_then_so_it_holds_few_changes() -> None:
    latest = FrozenMap({"a": 0})
    for n in range(1, 200):
        latest = latest.evolve(put={"a": n})
        assert latest.built == (n % (UNREAD_LIMIT + 1) == 0)
    assert latest["a"] == 199


def test_readers_building_versions_while_the_writer_evolves_see_each_as_made() -> None:
    latest = FrozenMap({"n": 0})
    made: list[FrozenMap[str, int]] = [latest]
    done = threading.Event()
    wrong: list[str] = []

    def read() -> None:
        while not done.is_set():
            for v in made[-5:]:
                if dict(v) != {"n": v.version, **{f"k{i}": i for i in range(1, v.version + 1)}}:
                    wrong.append(f"version {v.version}: {dict(v)}")

    readers = [threading.Thread(target=read) for _ in range(3)]
    for t in readers:
        t.start()
    for n in range(1, 300):
        made.append(made[-1].evolve(put={"n": n, f"k{n}": n}))
    done.set()
    for t in readers:
        t.join()

    assert not wrong, wrong[:3]
    assert all(dict(v)["n"] == v.version for v in made)


def test_memo_once_callers_arriving_together_share_the_first_build() -> None:
    source: FrozenMap[str, int] = FrozenMap({"a": 1})
    builds: list[int] = []
    inside = threading.Event()
    release = threading.Event()

    def build(_: FrozenMap[str, int]) -> list[int]:
        builds.append(1)
        inside.set()
        release.wait(10)
        return [len(builds)]

    results: list[list[int]] = []
    arrived = threading.Semaphore(0)

    def ask() -> None:
        arrived.release()
        results.append(source.memo_once("k", build))

    first = threading.Thread(target=lambda: results.append(source.memo_once("k", build)))
    first.start()
    assert inside.wait(10)  # the first build is under way: the others ask meanwhile
    others = [threading.Thread(target=ask) for _ in range(4)]
    for thread in others:
        thread.start()
    for _ in others:
        assert arrived.acquire(timeout=10)
    release.set()
    for thread in [first, *others]:
        thread.join(10)

    assert builds == [1]
    assert len(results) == 5 and all(result is results[0] for result in results)
    assert source.memo_once("k", build) is results[0]
    assert source.memo_once("other", lambda _: ["x"]) == ["x"]  # another key, its own build
