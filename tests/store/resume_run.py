"""Runs the crash-resume team in a process of its own (the tests kill and resume it).

python resume_run.py start STORE      # prints TEAM <id>, then BLOCKED once mid-conversation
python resume_run.py resume STORE ID  # resumes the team, lets it finish, prints DONE
"""

from __future__ import annotations

import sys

import resume_scripts
from retinue import (
    ActorSystem,
    AgentCard,
    AgentConfig,
    AgentMessage,
    BaseAgent,
    BaseConfig,
    HumanProxy,
    ModelConfig,
    Orchestrator,
)
from retinue.resume import resume_team
from retinue.store import open_store

TIMEOUT = 60.0


def card(role: str) -> AgentCard:
    return AgentCard(
        description=f"The team's {role}",
        agent_class=BaseAgent,
        config=AgentConfig(
            name=f"@{role}",
            role=role,
            model_cfg=ModelConfig(provider="function", model=f"resume_scripts:{role.lower()}"),
        ),
    )


def start(where: str) -> None:
    system = ActorSystem(store=where)
    orchestrator = system.createActor(
        Orchestrator, BaseConfig(name="@Orchestrator", role="Orchestrator")
    )
    print(f"TEAM {orchestrator.team_id}", flush=True)
    team = system.proxy_ask(orchestrator, Orchestrator)
    team.register_agent_profiles([card("Manager"), card("Worker")])
    human = team.createActor(HumanProxy, BaseConfig(name="@Human", role="Human"))
    manager = team.createActor(BaseAgent, card("Manager").get_config_copy())
    team.createActor(BaseAgent, card("Worker").get_config_copy())
    system.proxy_ask(human, HumanProxy).send(manager, AgentMessage(content="count the stars"))
    if not resume_scripts.REACHED.wait(TIMEOUT):
        raise SystemExit("the worker was never reached")
    # The orchestrator commits each report before it takes the next one: once this ask is
    # answered, everything reported before it is in the store.
    system.ask(orchestrator, "get_directory")
    print("BLOCKED", flush=True)
    resume_scripts.REACHED.clear()
    resume_scripts.REACHED.wait()  # until killed


def resume(where: str, team_id: str) -> None:
    store = open_store(where, create=False)
    team = resume_team(store, team_id)
    team.system.wait_idle(TIMEOUT)
    print("DONE", ", ".join(sorted(team.roster)), flush=True)
    team.shutdown()
    store.close()


if __name__ == "__main__":
    if sys.argv[1] == "start":
        start(sys.argv[2])
    else:
        resume(sys.argv[2], sys.argv[3])
