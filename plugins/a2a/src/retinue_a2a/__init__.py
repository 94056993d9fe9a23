"""retinue-a2a: a team served as an A2A agent, and A2A agents as team members.

`retinue a2a serve TEAM.toml` makes a team one A2A agent; `A2AMember` (config
`A2AMemberConfig(url=...)`) is a member whose turns a remote A2A agent answers.
"""

from retinue_a2a.errors import RemoteAgentError
from retinue_a2a.events import RemoteProgressEvent
from retinue_a2a.member import A2AMember, A2AMemberConfig, A2AMemberState

__all__ = [
    "A2AMember",
    "A2AMemberConfig",
    "A2AMemberState",
    "RemoteAgentError",
    "RemoteProgressEvent",
]
