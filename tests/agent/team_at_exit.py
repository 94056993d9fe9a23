"""A team of agents all mid-turn; run as a script, it shuts the team down and exits.

Half the agents are parked in a sync model function blocked on an event nobody sets, half
in an async request that never answers. `python team_at_exit.py AGENTS` shuts such a team
down with a short deadline while every agent is mid-turn, then lets the interpreter exit:
the process must end with status 0, however the shutdown went.
"""

from __future__ import annotations

import faulthandler
import sys

import containment_cards
from retinue import ActorSystem, AgentMessage, BaseConfig, Orchestrator
from retinue.llm.loop import get_model_loop


def busy_team(agents: int) -> ActorSystem:
    """A system whose `agents` agents are all in the middle of a turn when it returns."""
    system = ActorSystem(ask_timeout=60)
    orchestrator = system.createActor(
        Orchestrator, BaseConfig(name="@Orchestrator", role="Orchestrator")
    )
    team = system.proxy_ask(orchestrator, Orchestrator)
    blocked = agents // 2
    members = []
    for n in range(agents):
        script = "blocking_model" if n < blocked else "parked_model"
        member = containment_cards.card(f"Agent{n}", script)
        members.append(team.createActor(member.get_agent_class(), member.config))
    for address in members:
        system.send(address, AgentMessage(content="block"))
    # every async agent is in its request, and every worker thread holds a blocked sync one
    busy = (agents - blocked) + min(blocked, get_model_loop().thread_limit)
    for _ in range(busy):
        if not containment_cards.arrivals.acquire(timeout=60):
            raise RuntimeError("the team never got busy")
    return system


if __name__ == "__main__":
    faulthandler.enable()  # an abort at exit prints every thread's stack
    team_system = busy_team(int(sys.argv[1]))
    stopped = team_system.shutdown(timeout=0.5)
    print(f"shutdown returned {stopped}", file=sys.stderr)
