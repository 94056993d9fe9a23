"""A team across two Ray hosts on a real local Ray cluster (two nodes), unchanged user code."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import pytest
import ray
from ray_scripts import Counter
from retinue import (
    ActorAddress,
    ActorSystem,
    AgentCard,
    AgentConfig,
    AgentMessage,
    BaseConfig,
    DeadLetterEvent,
    EventMessage,
    EventSubscriber,
    HumanProxy,
    Message,
    ModelConfig,
    Orchestrator,
    PromptTemplate,
    RunStartedEvent,
    SentMessage,
    TeamUsageLimits,
)
from retinue.testing import TeamHarness
from retinue_ray import HostLostEvent, MembersRestoredEvent, RayCluster


def card(role: str, script: str, **metadata: Any) -> AgentCard:
    """A card whose agent plays `ray_scripts:<script>` (imported by name on its host)."""
    return AgentCard(
        description=f"{role} of the team",
        agent_class="retinue.BaseAgent",
        config=AgentConfig(
            name=f"@{role}",
            role=role,
            prompt=PromptTemplate(template=f"You are the {role}."),
            model_cfg=ModelConfig(provider="function", model=f"ray_scripts:{script}"),
        ),
        metadata=metadata,
    )


def cluster_of(team: TeamHarness) -> RayCluster:
    cluster = team.system.cluster
    assert isinstance(cluster, RayCluster)
    return cluster


def counter(team: TeamHarness, name: str) -> ActorAddress:
    address: ActorAddress = team.orchestrator_proxy.createActor(
        Counter, BaseConfig(name=name, role="Counter")
    )
    return address


def test_the_hosts_are_two_processes_on_the_two_nodes(retinue_team: TeamHarness) -> None:
    cluster = cluster_of(retinue_team)
    where = [ray.get(cluster.handle(h).where.remote()) for h in cluster.hosts]
    node_ips = {n["NodeID"]: n["NodeManagerAddress"] for n in ray.nodes() if n["Alive"]}
    assert {node_ips[node] for _, node in where} == {"127.0.0.2", "127.0.0.3"}
    pids = {pid for pid, _ in where}
    assert len(pids) == 2 and os.getpid() not in pids


def test_the_quick_start_runs_across_hosts(retinue_team: TeamHarness) -> None:
    team = retinue_team
    team.register(card("Developer", "developer"))
    manager = team.add(card("Manager", "manager"))
    team.say(manager, "Plan the next sprint.")
    team.wait_idle(60)
    assert team.transcript() == [
        ("@Human", "@Manager", "request", "Plan the next sprint."),
        ("@Manager", "@Developer", "request", "Write the sprint plan"),
        ("@Developer", "@Manager", "response", "plan ready"),
        ("@Manager", "@Human", "response", "Sprint planned: plan ready"),
    ]
    members = {m.name: m for m in team.orchestrator_proxy.get_team_members()}
    # The person and the orchestrator stay in the driver; the hire went to the other host.
    assert members["@Human"].host == "driver" and team.orchestrator.host == "driver"
    assert {members["@Manager"].host, members["@Developer"].host} == {"host-1", "host-2"}


def test_the_orchestrator_can_run_on_a_host(ray_cluster: Any) -> None:
    system = ActorSystem(cluster=RayCluster(hosts=2, reuse=True, orchestrator="host-1"))
    try:
        config = BaseConfig(name="@Orchestrator", role="Orchestrator")
        orchestrator = system.createActor(Orchestrator, config)
        assert orchestrator.host == "host-1"
        team = system.proxy_ask(orchestrator, Orchestrator)
        team.register_agent_profiles([card("Developer", "developer")])
        human = team.createActor(HumanProxy, BaseConfig(name="@Human", role="Human"))
        manager = team.createActor("retinue.BaseAgent", card("Manager", "manager").config)
        assert human.host == "driver"
        system.send(manager, AgentMessage(content="Plan the next sprint."), sender=human)
        system.wait_idle(60)
        said = [
            (m.sender.name, m.recipient.name, m.message.content)
            for m in team.get_messages()
            if isinstance(m, SentMessage) and m.sender and m.recipient
        ]
        assert said[-1] == ("@Manager", "@Human", "Sprint planned: plan ready")
    finally:
        assert system.shutdown(30)


def test_a_role_goes_where_the_placement_says(ray_cluster: Any) -> None:
    team = TeamHarness(cluster=RayCluster(hosts=2, reuse=True, placement={"Writer": "host-2"}))
    try:
        team.register(card("Writer", "developer"), card("Editor", "developer", host="host-1"))
        writers = [team.start("Writer") for _ in range(3)]
        editor = team.start("Editor")
        assert {w.host for w in writers} == {"host-2"} and editor.host == "host-1"
        assert [w.name for w in writers] == ["@Writer", "@Writer2", "@Writer3"]
    finally:
        assert team.shutdown(30)


def test_a_senders_mail_arrives_in_order_in_batches(retinue_team: TeamHarness) -> None:
    team = retinue_team
    first, second = counter(team, "@First"), counter(team, "@Second")
    assert first.host != second.host
    team.proxy(first).burst(second, 3000)
    team.wait_idle(120)
    assert team.proxy(second).received() == list(range(3000))
    batches, items = ray.get(cluster_of(team).handle(first.host).stats.remote())[second.host]
    assert items >= 3000 and batches < items  # many messages per Ray call


def test_wait_idle_waits_for_work_on_every_host(retinue_team: TeamHarness) -> None:
    team = retinue_team
    left, right = counter(team, "@Left"), counter(team, "@Right")
    team.proxy(left).relay(right, 400)  # 400 hops, each from one host to the other
    team.wait_idle(120)
    assert team.proxy(left).hop_count() + team.proxy(right).hop_count() == 400


def test_asks_tells_and_proxies_reach_actors_on_hosts(retinue_team: TeamHarness) -> None:
    team = retinue_team
    member = counter(team, "@Asked")
    assert team.proxy(member).host_name() == member.host
    team.system.tell(member, "burst", member, 3)
    team.wait_idle(60)
    assert team.proxy(member).received() == [0, 1, 2]
    with pytest.raises(AttributeError, match="no public method"):
        team.system.ask(member, "_private")
    assert member in team.system.actors()


class RunWatch(EventSubscriber):
    """Set once the record shows a run has started (the driver hears it from the host)."""

    def __init__(self) -> None:
        self.started = threading.Event()

    def on_message(self, message: Message) -> None:
        if isinstance(message, EventMessage) and isinstance(message.event, RunStartedEvent):
            self.started.set()


def test_a_stop_reaches_the_run_on_its_host_at_once(retinue_team: TeamHarness) -> None:
    team = retinue_team
    watch = RunWatch()
    team.orchestrator_proxy.subscribe(watch)
    worker = team.add(card("Worker", "stuck"))
    assert worker.host != "driver"
    team.say(worker, "Take your time.")
    assert watch.started.wait(60), "the worker's run never started"
    answer = team.command(worker, "/stop", timeout=45)  # the model would take 60 s
    assert answer == "Run interrupted."


def test_the_team_budget_is_one_across_hosts(ray_cluster: Any) -> None:
    team = TeamHarness(
        budget=TeamUsageLimits(request_limit=2), cluster=RayCluster(hosts=2, reuse=True)
    )
    try:
        one = team.add(card("Developer", "developer"))
        two = team.start("Developer")
        assert one.host != two.host
        for target in (one, two, one, two):
            team.say(target, "Write it.")
            team.wait_idle(60)
        status = team.budget_status()
        assert status.usage.requests == 2  # one run at a time: no overshoot
        assert set(status.usage.by_member) == {"@Developer", "@Developer2"}
        told = [m.content for m in team.received_by("@Human") if "budget" in m.content]
        assert len(told) == 1
    finally:
        assert team.shutdown(30)


def test_a_lost_host_is_reported_and_its_mail_is_dead_letters(ray_cluster: Any) -> None:
    cluster = RayCluster(hosts={"keep": [], "doomed": ["gpu"]})
    team = TeamHarness(cluster=cluster)
    try:
        team.register(card("Developer", "developer", host="gpu"))
        survivor = counter(team, "@Survivor")
        doomed = team.start("Developer")
        assert doomed.host == "doomed" and survivor.host == "keep"
        ray.kill(cluster.handle("doomed"))
        assert cluster.wait_lost("doomed", 60)
        team.wait_idle(60)
        # Reported once, naming what ran there; the person is told; the member left.
        assert team.events(HostLostEvent) == [HostLostEvent(host="doomed", members=["@Developer"])]
        assert any("doomed was lost" in m.content for m in team.received_by("@Human"))
        team.say(doomed, "Are you there?")  # a dead letter at once, never a hang
        team.wait_idle(60)
        assert [d.recipient for d in team.events(DeadLetterEvent)] == ["@Developer"]
        assert "@Developer" not in team.roster()
        with pytest.raises(Exception, match=r"not running|lost|gone"):
            team.system.ask(doomed, "received")
        assert team.proxy(survivor).received() == []  # the other host goes on
    finally:
        assert team.shutdown(30)


def test_the_members_of_a_lost_host_come_back_from_the_record(
    ray_cluster: Any, tmp_path: Path
) -> None:
    cluster = RayCluster(hosts={"stays": [], "goes": ["gpu"]}, restore=True)
    team = TeamHarness(cluster=cluster, store=tmp_path / "team.sqlite")
    try:
        team.register(card("Developer", "developer", host="gpu"))
        developer = team.start("Developer")
        assert developer.host == "goes"
        team.say(developer, "The first task.")
        team.wait_idle(60)
        ray.kill(cluster.handle("goes"))
        assert cluster.wait_lost("goes", 120)
        team.wait_idle(60)
        assert team.events(MembersRestoredEvent) == [
            MembersRestoredEvent(host="goes", members={"@Developer": "stays"})
        ]
        assert team.roster()["@Developer"] == "Developer"
        # Its old address reaches it where it runs now, and it remembers what it was told.
        team.say(developer, "The second task.")
        team.wait_idle(60)
        assert team.transcript()[-1] == ("@Developer", "@Human", "response", "plan ready")
        assert "The first task." in str(team.model_requests("@Developer")[-1])
    finally:
        assert team.shutdown(30)
