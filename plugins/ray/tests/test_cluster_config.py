"""A `RayCluster` given a wrong setting says so in one line, before any Ray process starts."""

from __future__ import annotations

import pytest
from retinue_ray import RayCluster


@pytest.mark.parametrize(
    ("kwargs", "problem"),
    [
        ({"hosts": 0}, "hosts must be 1 or more, got 0"),
        ({"hosts": "host-1"}, "hosts is a count, a list of names or a mapping"),
        ({"hosts": []}, "a cluster needs at least one host"),
        ({"hosts": ["driver"]}, "'driver' is the driver's own name"),
        (
            {"orchestrator": "nowhere"},
            "orchestrator='nowhere' names no host; hosts: host-1, host-2",
        ),
        ({"people": "host-3"}, "people='host-3' names no host"),
        (
            {"hosts": {"a": ["gpu"]}, "placement": {"Writer": "tpu"}},
            "placement['Writer'] names host 'tpu', which is no host or tag: a (tags: gpu)",
        ),
    ],
)
def test_a_wrong_setting_is_one_clear_error(kwargs: dict[str, object], problem: str) -> None:
    with pytest.raises(ValueError) as info:
        RayCluster(**kwargs)  # type: ignore[arg-type]
    assert problem in str(info.value)
    assert "\n" not in str(info.value)


def test_hosts_are_named_by_count_list_or_tags() -> None:
    assert RayCluster(hosts=3).hosts == ["host-1", "host-2", "host-3"]
    assert RayCluster(hosts=["a", "b"]).hosts == ["a", "b"]
    tagged = RayCluster(hosts={"a": ["gpu"], "b": []}, placement={"Researcher": "gpu"})
    assert tagged.hosts == ["a", "b"]
