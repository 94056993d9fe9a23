"""Shared measuring tools: memory, statistics, a bare team, and bare pydantic-ai runs."""

from __future__ import annotations

import gc
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic_ai import Agent
from pydantic_ai.models.function import FunctionModel
from retinue import (
    ActorAddress,
    ActorSystem,
    AgentCard,
    AgentConfig,
    AgentMessage,
    BaseConfig,
    CompactionConfig,
    HumanProxy,
    LoopLimits,
    ModelConfig,
    Orchestrator,
    PromptTemplate,
    StructuredOutput,
    TeamConfig,
)
from retinue.plugins import get_plugin_manager

IDLE_TIMEOUT = 600.0


# -- memory -----------------------------------------------------------------------------------


def rss_kb() -> float:
    """This process's resident set size in KB (Linux `/proc`; peak RSS elsewhere)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return float(line.split()[1])
    except OSError:
        pass
    import resource

    return float(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


def settled_rss_kb() -> float:
    """RSS after a full garbage collection, so cycles awaiting collection do not count."""
    gc.collect()
    return rss_kb()


def tracked_objects() -> int:
    """Objects the garbage collector tracks: a leak shows here whatever the allocator does."""
    gc.collect()
    return len(gc.get_objects())


# -- statistics -------------------------------------------------------------------------------


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else float("nan")


def intervals(stamps: Sequence[float]) -> list[float]:
    return [b - a for a, b in itertools.pairwise(stamps)]


def window_median(values: Sequence[float], share: float, *, at_end: bool) -> float:
    """Median of the first (or last) `share` of `values` (at least one value)."""
    n = max(1, int(len(values) * share))
    return median(values[-n:] if at_end else values[:n])


# -- a team without a recorder (the test harness keeps every message; we must not) -------------


class QuietHuman(HumanProxy):
    """A person's seat that only notes when messages arrive."""

    arrivals: list[float] = []  # noqa: RUF012 - shared on purpose: one person per benchmark
    arrived = threading.Event()

    def on_agent_message(self, message: AgentMessage, sender: ActorAddress | None) -> None:
        QuietHuman.arrivals.append(time.perf_counter())
        QuietHuman.arrived.set()


class BenchTeam:
    """An actor system with an orchestrator and a quiet `@Human`, plugins discovered or not.

    `blocked` names installed plugins to leave out (`("team",)`: no team card); `extra`
    registers plugin objects made in code besides; `store` records the team (a
    `retinue.store.Store` or a path), None records nothing.
    """

    def __init__(
        self,
        *,
        plugins: bool = True,
        blocked: Sequence[str] = (),
        extra: Sequence[object] = (),
        ask_timeout: float = 60.0,
        store: Any = None,
    ) -> None:
        pm = get_plugin_manager(autoload=plugins, blocked=blocked, plugins=extra)
        self.system = ActorSystem(ask_timeout=ask_timeout, plugin_manager=pm, store=store)
        # A 2,000-hop ping-pong is a loop by design: the detector still counts every hop
        # (its cost is part of what is measured) but never stops one.
        self.orchestrator = self.system.createActor(
            Orchestrator,
            TeamConfig(name="@Orchestrator", role="Orchestrator", loops=LoopLimits(enabled=False)),
        )
        self.orchestrator_proxy: Any = self.system.proxy_ask(self.orchestrator)
        QuietHuman.arrivals = []
        QuietHuman.arrived.clear()
        self.human: ActorAddress = self.orchestrator_proxy.createActor(
            QuietHuman, BaseConfig(name="@Human", role="Human")
        )

    def register(self, *cards: AgentCard) -> None:
        self.orchestrator_proxy.register_agent_profiles(list(cards))

    def add(self, card: AgentCard) -> ActorAddress:
        address: ActorAddress = self.orchestrator_proxy.createActor(
            card.get_agent_class(), card.get_config_copy()
        )
        return address

    def say(self, recipient: ActorAddress, content: str, intent: str = "request") -> None:
        self.system.proxy_tell(self.human).send(
            recipient, AgentMessage(content=content, type=intent)
        )

    def wait_idle(self, timeout: float = IDLE_TIMEOUT) -> None:
        self.system.wait_idle(timeout)

    def actor(self, address: ActorAddress) -> Any:
        """The live actor object (read-only inspection from the benchmark thread)."""
        from retinue.actors import runtime

        return runtime.lookup(address.agent_id)

    def shutdown(self) -> None:
        self.system.shutdown(timeout=30)


def agent_card(
    role: str,
    script: str,
    *,
    name: str | None = None,
    window: int | None = None,
    context_length: int | None = None,
    tools: list[Any] | None = None,
) -> AgentCard:
    """A `BaseAgent` card on a scripted model from `benchmarks.scripts`.

    `window` (messages) switches automatic window compaction on; it needs `context_length`
    (tokens): compaction runs once the estimated history passes 80% of it.
    """
    compaction = CompactionConfig(strategy="window" if window else "none", keep_last=window or 20)
    return AgentCard(
        description=f"{role} for the benchmarks",
        skills=[role.lower()],
        agent_class="retinue.BaseAgent",
        config=AgentConfig(
            name=name or f"@{role}",
            role=role,
            prompt=PromptTemplate(template=f"You are the {role}."),
            model_cfg=ModelConfig(
                provider="function",
                model=f"benchmarks.scripts:{script}",
                context_length=context_length if window else None,
            ),
            compaction_cfg=compaction,
            tools=list(tools or []),
        ),
    )


# -- bare pydantic-ai -------------------------------------------------------------------------


def bare_agent(function: Any, instructions: str | None = None) -> Agent[None, StructuredOutput]:
    """What a user would write with pydantic-ai alone: one agent, the same output type."""
    return Agent(FunctionModel(function), output_type=StructuredOutput, instructions=instructions)


# -- fresh interpreters -----------------------------------------------------------------------

REPO_ROOT = Path(__file__).resolve().parent.parent


PYCACHE = Path(tempfile.gettempdir()) / "retinue-benchmarks-pycache"
"""Where child interpreters keep bytecode: outside the repository, and written even when
`PYTHONDONTWRITEBYTECODE` is set, so no measured import compiles source (an installed
package has its bytecode compiled at install time)."""


def child_env() -> dict[str, str]:
    """The environment for a child interpreter: the repository importable, bytecode cached."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(PYCACHE)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO_ROOT), env.get("PYTHONPATH", "")) if p)
    return env


def run_child(target: str, *, environ: dict[str, str] | None = None, **kwargs: Any) -> Any:
    """Call `module:function(**kwargs)` in a fresh interpreter (`environ` added to its
    environment); returns its JSON result."""
    completed = subprocess.run(
        [sys.executable, "-m", "benchmarks.child", target, json.dumps(kwargs)],
        cwd=REPO_ROOT,
        env={**child_env(), **(environ or {})},
        capture_output=True,
        text=True,
        check=False,
    )
    if completed.returncode != 0:
        raise RuntimeError(f"{target} failed in a child interpreter:\n{completed.stderr[-4000:]}")
    return json.loads(completed.stdout.strip().splitlines()[-1])
