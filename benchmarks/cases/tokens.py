"""Tokens: what a team sends its models, against bare pydantic-ai doing the same work.

Input tokens are what a team costs its users, and the framework decides much of them. Each
workload runs once on retinue (the kernel and the installed default cards) and once on bare
pydantic-ai behind a small router (`benchmarks.token_workloads`), with the same scripted
models; every request is recorded as the model receives it and counted with `o200k_base`.
The counts are exact and deterministic, so one run of each is enough at every scale.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from retinue import AgentCard, AgentConfig, ModelConfig, PromptTemplate

from benchmarks import token_workloads as w
from benchmarks.measure import BenchTeam
from benchmarks.suite import Case, CaseResult, Scale, Table, Target, ratio
from benchmarks.token_count import Ledger, Request, common_prefix

#: akgentic 1.8.1 on the issue's workloads (issue 28), as ratios to bare pydantic-ai there.
AKGENTIC_RATIO = {
    "delegation": 6.40,
    "ping-pong 20": 3.53,
    "ping-pong 100": 1.81,
    "fan-out 10": 5.94,
}

BACKSTORIES = {
    "Manager": "You are a project manager. Delegate the work to specialists, then report.",
    "Developer": "You are a developer. Answer with a short implementation plan.",
    "QA": "You are a QA engineer. Answer with the main risks.",
    "Player": "You play ping-pong: answer each hop with the next one.",
    "Lead": "You are a team lead. Hand each work item to a worker and collect the results.",
    "Worker": "You are a worker. Do the work item you are given and report it done.",
}


#: What the role profiles say of each role (an `AgentCard`'s description, for the others).
DESCRIPTIONS = {
    "Manager": "Coordinates the specialists",
    "Developer": "Plans and writes code",
    "QA": "Finds the risks",
    "Player": "Plays ping-pong",
    "Lead": "Hands out work items",
    "Worker": "Does work items",
}


@dataclass
class Workload:
    name: str
    roles: dict[str, Callable[..., Any]]
    """Each role's scripted model."""
    entry: str
    """The role the person writes to (its member is `@<Role>`, or `names` says)."""
    task: str
    routes: dict[str, list[str]]
    names: dict[str, str]
    """Members made before the person writes (by name), beside the entry."""
    fixed: list[tuple[str, str]]
    target: float
    max_members: int = 20
    queued: int = 0
    """Answers the entry waits to see queued while busy with the first one."""


def workloads(scale: Scale) -> list[Workload]:
    small = scale == "tiny"
    delegation = Workload(
        "delegation",
        {"Manager": w.manager, "Developer": w.specialist, "QA": w.specialist},
        "Manager",
        "Plan a small command-line tool that renames photos by date.",
        {"Manager": ["Developer", "QA"]},
        {},
        [],
        2.0,
    )
    out = [delegation]
    for hops in (6,) if small else (20, 100):
        out.append(
            Workload(
                f"ping-pong {hops}",
                {"Player": w.player},
                "Player",
                f"hop 0/{hops}",
                {},
                {"Player": "@Ping"},
                [("Player", "@Pong")],
                1.5,
            )
        )
    for workers, label in (
        ((3, "fan-out 3"),) if small else ((10, "fan-out 10"), (50, "team of 50"))
    ):
        out.append(
            Workload(
                label,
                {"Lead": w.fan_out_manager, "Worker": w.worker},
                "Lead",
                f"fan out to {workers}",
                {"Lead": ["Worker"]},
                {},
                [],
                1.5,
                max_members=workers + 5,
                queued=workers - 1,
            )
        )
    return out


def model(function: Callable[..., Any]) -> ModelConfig:
    return ModelConfig(provider="function", model=f"benchmarks.token_workloads:{function.__name__}")


def card(work: Workload, role: str, name: str | None = None) -> AgentCard:
    tools: list[Any] = []
    if work.max_members != 20:
        from retinue_team import TeamTool

        tools.append(TeamTool(max_members=work.max_members))
    return AgentCard(
        description=DESCRIPTIONS[role],
        agent_class="retinue.BaseAgent",
        config=AgentConfig(
            name=name or f"@{role}",
            role=role,
            prompt=PromptTemplate(template=BACKSTORIES[role]),
            model_cfg=model(work.roles[role]),
            tools=tools,
        ),
        routes_to=work.routes.get(role, []),
    )


def on_retinue(work: Workload) -> Ledger:
    ledger = w.start(w.RETINUE, BACKSTORIES)
    team = BenchTeam()
    try:
        team.register(*(card(work, role) for role in work.roles))
        entry = team.add(card(work, work.entry, work.names.get(work.entry)))
        for role, name in work.fixed:
            team.add(card(work, role, name))
        team.wait_idle()
        if work.queued:
            w.Recording.queued = _queue_of(team, entry, work.queued)
        team.say(entry, work.task)
        team.wait_idle()
    finally:
        team.shutdown()
    return ledger


def _queue_of(team: BenchTeam, entry: Any, count: int) -> Callable[[], Any]:
    """Waits (on the model loop, politely) until `count` messages wait for the entry agent."""

    async def queued() -> None:
        actor = team.actor(entry)
        deadline = time.monotonic() + 30
        while len(actor.peek_mailbox()) < count and time.monotonic() < deadline:
            await asyncio.sleep(0.002)

    return queued


def on_bare(work: Workload) -> Ledger:
    ledger = w.start(w.BARE, BACKSTORIES)
    names = {work.entry: work.names.get(work.entry, f"@{work.entry}")}
    w.run_bare(work.roles, BACKSTORIES, (work.entry, work.task), names=names, fixed=work.fixed)
    return ledger


def run(scale: Scale) -> CaseResult:
    result = CaseResult(case="tokens", scale=scale)
    totals = Table(
        "Input tokens per workload (o200k_base)",
        ["workload", "bare", "retinue", "ratio", "runs bare", "runs retinue", "requests"],
    )
    kinds_table = Table(
        "Where retinue's input tokens go (all requests; bare in brackets)",
        ["kind", *(work.name for work in workloads(scale))],
    )
    cache = Table(
        "Cacheable prefix: share of input tokens that repeats an earlier request exactly",
        [
            "workload",
            "own bare",
            "own retinue",
            "team bare",
            "team retinue",
            "head of all",
            "role tail",
        ],
    )
    kinds: dict[str, list[str]] = {}
    framing_per_message: list[float] = []
    tails: list[int] = []
    for index, work in enumerate(workloads(scale)):
        bare, ours = on_bare(work), on_retinue(work)
        factor = ours.tokens / bare.tokens
        totals.add(
            work.name,
            bare.tokens,
            ours.tokens,
            ratio(factor),
            bare.runs,
            ours.runs,
            f"{len(bare.requests)} / {len(ours.requests)}",
        )
        key = work.name.replace(" ", "_")
        result.metrics[f"{key}_bare"] = bare.tokens
        result.metrics[f"{key}_retinue"] = ours.tokens
        result.metrics[f"{key}_ratio"] = factor
        result.targets.append(Target(f"{work.name}: retinue / bare", factor, work.target, "x"))
        if work.name in AKGENTIC_RATIO:
            result.targets.append(
                Target(
                    f"{work.name}: below akgentic's ratio", factor, AKGENTIC_RATIO[work.name], "x"
                )
            )
        theirs, mine = bare.by_kind(), ours.by_kind()
        for kind in sorted(set(theirs) | set(mine)):
            if kind == "separator":
                continue
            row = kinds.setdefault(kind, ["—"] * len(workloads(scale)))
            row[index] = f"{mine.get(kind, 0):,} ({theirs.get(kind, 0):,})"
        own_bare, team_bare = bare.cached_shares()
        own_ours, team_ours = ours.cached_shares()
        head, tail = shared_head(ours)
        cache.add(
            work.name,
            f"{own_bare:.0%}",
            f"{own_ours:.0%}",
            f"{team_bare:.0%}",
            f"{team_ours:.0%}",
            head,
            "—" if tail is None else tail,
        )
        result.metrics[f"{key}_shared_head"] = head
        if tail is not None:
            tails.append(tail)
        framing_per_message.append(framing_per_delivery(ours))
    for kind, cells in sorted(kinds.items()):
        kinds_table.add(kind, *cells)
    fixed = fixed_tokens(scale)
    fixed_table = Table(
        "Framework tokens every request carries (a fresh member's first request)",
        ["", "bare", "retinue"],
    )
    for label, (theirs_n, mine_n) in fixed.items():
        fixed_table.add(label, theirs_n, mine_n)
    per_message = max(framing_per_message)
    result.metrics["framing_per_message"] = per_message
    result.targets.append(
        Target("framework text per delivered message (line + fence)", per_message, 15, "tokens")
    )
    tail = max(tails, default=0)
    result.metrics["instructions_tail"] = tail
    result.targets.append(
        Target(
            "instruction tokens after what differs between members of a role", tail, 16, "tokens"
        )
    )
    result.tables += [totals, kinds_table, fixed_table, cache]
    result.notes.append(
        "bare: one pydantic-ai Agent per member (its role's instructions, a plain output model "
        "of the same fields), prompts `@Sender (intent): content`, one run per message"
    )
    result.notes.append(
        "cacheable prefix: own = of the agent's previous request, team = of any earlier "
        "request; head of all = leading tokens every member's first request shares; role "
        "tail = instruction tokens from the first that differs between members of one role"
    )
    result.notes.append(
        "akgentic's ratios are its figures in issue 28 over that issue's bare baseline"
    )
    return result


def shared_head(ledger: Ledger) -> tuple[int, int | None]:
    """Leading tokens the first requests of all members share; and, among members of one
    role, how many instruction tokens come at or after the first that differs (the name and
    the date belong there, at the tail), or None without two members of one role."""
    firsts: dict[str, Request] = {}
    for request in ledger.requests:
        firsts.setdefault(request.agent, request)
    requests = list(firsts.values())
    if len(requests) < 2:
        return 0, None
    head = min(common_prefix(requests[0].sequence, r.sequence) for r in requests[1:])
    by_role: dict[str, list[Request]] = {}
    for request in requests:  # members of one role share its instructions ("role" segment)
        role = "".join(s.text for s in request.segments if s.kind == "instructions: role")
        by_role.setdefault(role, []).append(request)
    tails = []
    for group in by_role.values():
        if len(group) < 2:
            continue
        same = min(common_prefix(group[0].sequence, r.sequence) for r in group[1:])
        instructions = sum(s.tokens for s in group[0].segments if s.kind.startswith("instructions"))
        tails.append(instructions - min(same, instructions))
    return head, max(tails) if tails else None


def framing_per_delivery(ledger: Ledger) -> float:
    """Framing tokens per delivered message, over each agent's last request (its history
    holds every message it was delivered, each once)."""
    last: dict[str, Any] = {}
    for request in ledger.requests:
        last[request.agent] = request
    framing = payloads = 0
    for request in last.values():
        framing += sum(s.tokens for s in request.segments if s.kind == "framing")
        payloads += sum(s.kind == "payload" for s in request.segments)
    return framing / payloads if payloads else 0.0


def fixed_tokens(scale: Scale) -> dict[str, tuple[int, int]]:
    """Instructions, tool schemas and the output schema of a worker's first request."""
    work = next(x for x in workloads(scale) if x.name.startswith("fan-out"))
    found: dict[str, tuple[int, int]] = {}
    ledgers = (on_bare(work), on_retinue(work))
    firsts = [next(r for r in ledger.requests if r.agent == "@Worker") for ledger in ledgers]
    for kind in ("instructions: framework", "tool schemas", "output schema"):
        theirs, mine = (r.by_kind().get(kind, 0) for r in firsts)
        found[kind] = (theirs, mine)
    found["all of them"] = (
        sum(v[0] for v in found.values()),
        sum(v[1] for v in found.values()),
    )
    return found


CASE = Case("tokens", "input tokens against bare pydantic-ai", run, order=5)
