"""retinue-ray's tests run against a real local Ray cluster the session starts and stops
(a head on 127.0.0.2, a node on 127.0.0.3; see `retinue_ray.testing`), and every
`retinue_team` here runs on two Ray hosts."""

from __future__ import annotations

from typing import Any

import pytest
from retinue_ray.testing import ray_cluster

__all__ = ["ray_cluster", "retinue_cluster"]


@pytest.fixture
def retinue_cluster(ray_cluster: Any) -> Any:
    from retinue_ray import RayCluster
    from retinue_ray.testing import TEST_HOSTS

    return RayCluster(hosts=TEST_HOSTS, reuse=True)
