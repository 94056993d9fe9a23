"""A team on Ray hosts vs one process: `python -m benchmarks.ray_scaling [--quick|--tiny]`.

Not one of the discovered cases (`python -m benchmarks`): it needs retinue-ray, Ray and a
cluster. It starts a real local Ray cluster (two nodes on 127.0.0.2 and 127.0.0.3, see
`retinue_ray.local`), measures, and stops it (`ray stop`), whatever happens.

- **fan-out**: 400 agents each answering with a 200 ms model; a manager sends one request
  to every one and takes the 400 answers back; wall time from the person's request to the
  manager's last answer, and the start of the 400 agents, in one process vs 2 and 4 hosts.
- **hops**: two relays passing one message back and forth (each hop waits for the one
  before): in one process, both on one host, on two hosts. Latency-bound.
- **burst**: one actor sending many messages to another as fast as it can: in one process,
  within a host, across hosts (the links batch them).
- **hosts**: how long a cluster of N new hosts takes to start (a Ray worker process each).

Figures from a loaded 2-core machine are noise in absolute terms; compare within a run.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import re
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo
from retinue import (
    Actor,
    ActorAddress,
    ActorSystem,
    AgentCard,
    AgentConfig,
    AgentMessage,
    BaseConfig,
    BaseState,
    HumanProxy,
    LoopLimits,
    Message,
    ModelConfig,
    Orchestrator,
    PromptTemplate,
    TeamConfig,
)
from retinue.testing import last_prompt, send

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.suite import CaseResult, Table, ratio, render_result

REPO_ROOT = Path(__file__).resolve().parent.parent
SIZES: dict[str, dict[str, int]] = {
    "full": {"agents": 400, "hops": 2000, "burst": 20000},
    "quick": {"agents": 400, "hops": 1000, "burst": 10000},
    "tiny": {"agents": 8, "hops": 50, "burst": 200},
}
MODEL_DELAY = 0.2
FAN_OUT = re.compile(r"fan out to (\d+)")
ANSWER = re.compile(r"sender=\"?@Worker")


# ---------------------------------------------------------------------- on the hosts
async def worker(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """A model that takes 200 ms, then answers the manager."""
    await asyncio.sleep(MODEL_DELAY)
    return send(info, ("@Manager", "response", "done"))


def manager(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """`fan out to N`: one request to each worker; with N answers in, tell the person."""
    prompt = last_prompt(messages)
    asked = FAN_OUT.search(prompt)
    if asked is not None:
        count = int(asked.group(1))
        names = ["@Worker", *(f"@Worker{i}" for i in range(2, count + 1))]
        return send(info, *((name, "request", "work item") for name in names))
    wanted = answers = 0
    for message in messages:
        for part in getattr(message, "parts", ()):
            text = str(getattr(part, "content", ""))
            if found := FAN_OUT.search(text):
                wanted = int(found.group(1))
            answers += len(ANSWER.findall(text))
    if wanted and answers >= wanted:
        return send(info, ("@Human", "response", f"all {answers} answers in"))
    return send(info)


class Ball(Message):
    """The message two relays pass back and forth; `left` hops to go."""

    left: int


class Relay(Actor[BaseConfig, BaseState]):
    """Passes the ball back until no hop is left; counts what a burst brought."""

    def on_start(self) -> None:
        self.count = 0

    def receiveMsg_Ball(self, message: Ball, sender: ActorAddress | None) -> None:
        self.count += 1
        if message.left > 0 and sender is not None and message.left < 10**9:
            self.send(sender, Ball(left=message.left - 1))

    def serve(self, other: ActorAddress, hops: int) -> None:
        self.send(other, Ball(left=hops - 1))

    def burst(self, other: ActorAddress, count: int) -> None:
        for _ in range(count):
            self.send(other, Ball(left=10**9))  # never passed back

    def received(self) -> int:
        return self.count


# ---------------------------------------------------------------------- in the driver
class Arrivals(HumanProxy):
    """The person: notes when an answer arrives (it runs in the driver)."""

    arrived = threading.Event()

    def on_agent_message(self, message: AgentMessage, sender: ActorAddress | None) -> None:
        Arrivals.arrived.set()


def card(role: str, script: str) -> AgentCard:
    return AgentCard(
        description=role,
        agent_class="retinue.BaseAgent",
        config=AgentConfig(
            name=f"@{role}",
            role=role,
            prompt=PromptTemplate(template=f"You are the {role}."),
            model_cfg=ModelConfig(provider="function", model=f"benchmarks.ray_scaling:{script}"),
        ),
    )


@contextmanager
def team_on(hosts: int, **options: Any) -> Iterator[tuple[ActorSystem, Any, float]]:
    """A system on `hosts` Ray hosts (0: one process), its orchestrator, the start seconds."""
    from retinue_ray import RayCluster

    started = time.perf_counter()
    cluster = RayCluster(hosts=hosts, reuse=True, **options) if hosts else None
    system = ActorSystem(ask_timeout=120, cluster=cluster)
    attach = time.perf_counter() - started
    try:
        config = TeamConfig(
            name="@Orchestrator", role="Orchestrator", loops=LoopLimits(enabled=False)
        )
        orchestrator = system.proxy_ask(system.createActor(Orchestrator, config), Orchestrator)
        yield system, orchestrator, attach
    finally:
        system.shutdown(60)


def fan_out(hosts: int, agents: int) -> dict[str, float]:
    with team_on(hosts) as (system, team, _):
        team.createActor(Arrivals, BaseConfig(name="@Human", role="Human"))
        worker_card, manager_card = card("Worker", "worker"), card("Manager", "manager")
        team.register_agent_profiles([worker_card, manager_card])
        started = time.perf_counter()
        for _ in range(agents):
            team.createActor("retinue.BaseAgent", worker_card.get_config_copy())
        boss = team.createActor("retinue.BaseAgent", manager_card.get_config_copy())
        system.wait_idle(300)
        startup = time.perf_counter() - started
        Arrivals.arrived.clear()
        human = team.get_user_proxies()[0]
        begun = time.perf_counter()
        system.send(boss, AgentMessage(content=f"fan out to {agents}"), sender=human)
        if not Arrivals.arrived.wait(600):
            raise RuntimeError("the manager never answered the fan-out")
        wall = time.perf_counter() - begun
        system.wait_idle(300)
        return {"startup": startup, "wall": wall}


def relays(hosts: int, same_host: bool, hops: int, burst: int) -> dict[str, float]:
    placement = {} if not hosts else {"A": "host-1", "B": "host-1" if same_host else "host-2"}
    with team_on(hosts, placement=placement) as (system, team, _):
        a = team.createActor(Relay, BaseConfig(name="@A", role="A"))
        b = team.createActor(Relay, BaseConfig(name="@B", role="B"))
        begun = time.perf_counter()
        system.ask(a, "serve", b, hops)
        system.wait_idle(600)
        hop_seconds = time.perf_counter() - begun
        begun = time.perf_counter()
        system.ask(a, "burst", b, burst)
        system.wait_idle(600)
        burst_seconds = time.perf_counter() - begun
        return {"hops_per_s": hops / hop_seconds, "burst_per_s": burst / burst_seconds}


def host_start(hosts: int) -> float:
    """Seconds for `hosts` new hosts (new processes) to be up and opened."""
    from retinue_ray import RayCluster

    started = time.perf_counter()
    system = ActorSystem(cluster=RayCluster(hosts=[f"fresh-{i}" for i in range(hosts)]))
    seconds = time.perf_counter() - started
    system.shutdown(60)
    return seconds


def measure(scale: str) -> CaseResult:
    size = SIZES[scale]
    result = CaseResult(case="ray", scale=scale)
    fan = Table(
        f"{size['agents']} agents x {MODEL_DELAY * 1e3:.0f} ms model: fan-out and fan-in",
        ["runtime", "start agents s", "fan-out wall s", "wall vs 1 process", "vs one delay"],
    )
    base = None
    for hosts in (0, 2, 4):
        got = fan_out(hosts, size["agents"])
        base = base or got["wall"]
        label = "1 process" if not hosts else f"{hosts} Ray hosts"
        fan.add(
            label,
            got["startup"],
            got["wall"],
            ratio(got["wall"] / base),
            ratio(got["wall"] / MODEL_DELAY),
        )
        result.metrics[f"fanout.{hosts}.wall"] = got["wall"]
        result.metrics[f"fanout.{hosts}.startup"] = got["startup"]
    result.tables.append(fan)
    hop = Table(
        f"Hops ({size['hops']} in a row) and a burst ({size['burst']} one way) between two actors",
        ["where", "hops/s", "burst msgs/s", "hop cost vs 1 process"],
    )
    local = relays(0, True, size["hops"], size["burst"])
    for label, hosts, same in (
        ("1 process", 0, True),
        ("one Ray host", 2, True),
        ("two Ray hosts", 2, False),
    ):
        got = local if not hosts else relays(hosts, same, size["hops"], size["burst"])
        hop.add(
            label,
            got["hops_per_s"],
            got["burst_per_s"],
            ratio(local["hops_per_s"] / got["hops_per_s"]),
        )
        key = "process" if not hosts else ("in_host" if same else "cross_host")
        result.metrics[f"hops.{key}"] = got["hops_per_s"]
        result.metrics[f"burst.{key}"] = got["burst_per_s"]
    result.tables.append(hop)
    start = Table("Starting new hosts (a Ray worker process each)", ["hosts", "seconds"])
    for hosts in (1, 2, 4):
        seconds = host_start(hosts)
        start.add(hosts, seconds)
        result.metrics[f"start.{hosts}"] = seconds
    result.tables.append(start)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--tiny", action="store_true")
    parser.add_argument("--markdown", type=Path)
    args = parser.parse_args(argv)
    scale = "tiny" if args.tiny else "quick" if args.quick else "full"
    import ray
    from retinue_ray.local import LocalRayCluster

    cluster = LocalRayCluster(nodes=2, python_path=[REPO_ROOT])
    cluster.start()
    try:
        ray.init(address=cluster.address, logging_level=logging.WARNING)
        started = time.perf_counter()
        result = measure(scale)
        result.seconds = time.perf_counter() - started
    finally:
        try:
            ray.shutdown()
        finally:
            cluster.stop()
    text = render_result(result)
    print(text)
    if args.markdown is not None:
        args.markdown.write_text(render_result(result, markdown=True), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
