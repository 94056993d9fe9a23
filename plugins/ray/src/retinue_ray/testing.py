"""retinue-ray's pytest plugin (opt-in: `pytest -p retinue_ray.testing`).

- `ray_cluster`: a real local Ray cluster for the whole session (a head on 127.0.0.2 and a
  second node on 127.0.0.3: Ray swaps 127.0.0.1 for the machine's outside address, see
  `retinue_ray.local`), this process connected to it; stopped at the end with `ray stop`,
  even when a test failed. One that cannot start fails the tests that need it.
- `pytest_retinue_cluster`: retinue's hook for the `retinue_cluster` fixture, answered:
  every `retinue_team` runs on two Ray hosts (started once, then opened again for each
  test), so a suite written for one process runs unchanged on Ray.

Run with it, a suite keeps only the tests that take a `retinue_team` (the others would run
in one process exactly as without it), and the tests listed in `ON_ONE_PROCESS_ONLY` are
expected to fail there, each for the reason given.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from retinue_ray.local import LocalRayCluster

#: Hosts each test's team runs on.
TEST_HOSTS = 2
_TEAM_TESTS = pytest.StashKey[int]()


#: Tests of the kernel's agent suite that cannot pass on Ray hosts, and why (by test id,
#: from the repository's root). Each is run and expected to fail (strict: one that passes
#: fails the run, so the list stays true).
ON_ONE_PROCESS_ONLY: dict[str, str] = {}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Keep the tests that run a team; mark those that cannot pass on Ray."""
    kept, dropped = [], []
    for item in items:
        if "retinue_team" in getattr(item, "fixturenames", ()):
            kept.append(item)
        else:
            dropped.append(item)
        reason = ON_ONE_PROCESS_ONLY.get(item.nodeid)
        if reason is not None:
            item.add_marker(pytest.mark.xfail(reason=reason, strict=True))
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept
    config.stash[_TEAM_TESTS] = len(kept)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--ray-python-path",
        action="append",
        default=[],
        help="a directory the Ray workers import test modules from (repeatable)",
    )


@pytest.fixture(scope="session")
def ray_cluster(request: pytest.FixtureRequest) -> Iterator[LocalRayCluster]:
    """A head on 127.0.0.2 and a node on 127.0.0.3, this process connected; stopped after."""
    import ray

    # Test modules (and the scripts and actors in them) are imported by name on the hosts:
    # the directories pytest put on `sys.path` for them go on the hosts' path too.
    root = Path(str(request.config.rootpath)).resolve()
    given = request.config.getoption("--ray-python-path", default=None) or []
    paths = [Path(p).resolve() for p in given]
    paths += [Path(p).resolve() for p in sys.path if p and Path(p).resolve().is_relative_to(root)]
    paths.append(root)
    cluster = LocalRayCluster(nodes=2, python_path=paths)
    cluster.start()
    try:
        ray.init(address=cluster.address, logging_level=logging.WARNING, log_to_driver=True)
        yield cluster
    finally:
        try:
            ray.shutdown()
        finally:
            cluster.stop()


def pytest_retinue_cluster(request: pytest.FixtureRequest) -> Any:
    """Each `retinue_team` runs on two Ray hosts, kept between tests (`reuse=True`)."""
    from retinue_ray.cluster import RayCluster

    request.getfixturevalue("ray_cluster")
    _ANSWERED.append(request.node.nodeid)
    return RayCluster(hosts=TEST_HOSTS, reuse=True)


#: The tests this plugin gave a Ray cluster: none after a run of team tests means the suite
#: ran in one process after all (another `retinue_cluster` fixture won), which fails it.
_ANSWERED: list[str] = []


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    teams = session.config.stash.get(_TEAM_TESTS, 0)
    if teams and not _ANSWERED and session.testscollected:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
        session.config.get_terminal_writer().line(
            "retinue_ray.testing: no test's team ran on Ray (another `retinue_cluster` "
            "fixture overrides the hook)",
            red=True,
        )
