"""retinue-ray: one team across many processes and machines, on Ray.

`ActorSystem(cluster=RayCluster(address="auto", hosts=2))` runs the team's agents on Ray
actors ("hosts"), each running many agents on retinue's own runtime; the same user code
(createActor, hiring, routing, the person's proxy, commands, cancellation, budgets,
subscribers, wait_idle, shutdown) works unchanged. See docs/ray.md.
"""

from retinue_ray.cluster import RayCluster
from retinue_ray.events import HostLostEvent, MembersRestoredEvent

__all__ = ["HostLostEvent", "MembersRestoredEvent", "RayCluster"]
