"""retinue-ray's tests run against a real local Ray cluster the session starts and stops
(a head on 127.0.0.2, a node on 127.0.0.3; see `retinue_ray.testing`), and every
`retinue_team` here runs on two Ray hosts."""

from retinue_ray.testing import ray_cluster, retinue_cluster

__all__ = ["ray_cluster", "retinue_cluster"]
