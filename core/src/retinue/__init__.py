"""retinue: teams of LLM agents that work as actors.

This is the public face: every name a user writes to build, run, observe and test a team,
and every name a plugin author writes to provide cards and hooks, importable from here
(`from retinue import BaseAgent, ActorSystem`). The face is the union of the layers'
`__all__`: a name is put on it, once, by listing it there. A layer's other names, those it
imports as themselves (`X as X`) among them, are kernel-internal (hook specifications,
mailbox and marker internals, the renderers of the kernel's own notices) and are imported
from the layer (`from retinue.plugins import hookspec`). See "The public face" in
docs/plugin-authoring.md.

Names load on first use, so `import retinue` stays cheap and a command such as
`retinue plugins` does not pay for pydantic-ai.
"""

# The star imports below are the type checkers' view of the face.
# ruff: noqa: F403

from __future__ import annotations

from typing import TYPE_CHECKING

__version__ = "0.1.0"

# The layers whose `__all__` makes up the face, cheapest to import first.
_LAYERS = (
    "retinue.tools",
    "retinue.plugins",
    "retinue.actors",
    "retinue.team",
    "retinue.tools.commands",
    "retinue.llm",
    "retinue.agent",
)

if TYPE_CHECKING:
    from retinue.actors import *
    from retinue.agent import *
    from retinue.llm import *
    from retinue.plugins import *
    from retinue.team import *
    from retinue.tools import *
    from retinue.tools.commands import *
else:  # hidden from type checkers, so a name off the face is an error there too
    from retinue._lazy import lazy_face

    __getattr__, __dir__ = lazy_face(__name__, _LAYERS)
