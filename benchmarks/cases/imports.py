"""Import time: `import retinue` and `from retinue import BaseAgent` against `import pydantic_ai`.

Each statement runs in a fresh interpreter that times only the statement itself
(`perf_counter` around it), so interpreter start-up is left out; statements are interleaved
and the median of the repeats is reported. A warm-up round first makes sure every bytecode
cache is written (in a cache directory of the benchmarks' own), so no run pays for compiling:
an installed package has its bytecode compiled when it is installed.
"""

from __future__ import annotations

import subprocess
import sys

from benchmarks.measure import REPO_ROOT, child_env, median
from benchmarks.suite import Case, CaseResult, Scale, Table, Target, ratio

REPEATS: dict[str, int] = {"full": 9, "quick": 5, "tiny": 1}

BASELINE = "import pydantic_ai"
STATEMENTS: dict[str, str] = {
    "import pydantic_ai": BASELINE,
    "import retinue": "import retinue",
    "from retinue import BaseAgent": "from retinue import BaseAgent",
    "  + plugin discovery": (
        "from retinue import BaseAgent; from retinue.plugins import get_plugin_manager; "
        "get_plugin_manager()"
    ),
    "from retinue import *": "from retinue import *",
}

PROGRAM = """\
import time
_t = time.perf_counter()
{statement}
_elapsed = time.perf_counter() - _t
import sys
print(_elapsed, len(sys.modules))
"""


def time_statement(statement: str) -> tuple[float, int]:
    """Seconds the statement took in a fresh interpreter, and the modules then loaded."""
    completed = subprocess.run(
        [sys.executable, "-c", PROGRAM.format(statement=statement)],
        cwd=REPO_ROOT,
        env=child_env(),
        capture_output=True,
        text=True,
        check=True,
    )
    seconds, modules = completed.stdout.split()
    return float(seconds), int(modules)


def run(scale: Scale) -> CaseResult:
    repeats = REPEATS[scale]
    result = CaseResult(case="imports", scale=scale)
    statements = dict(list(STATEMENTS.items())[:3]) if scale == "tiny" else STATEMENTS
    for statement in statements.values():  # warm-up: bytecode caches
        time_statement(statement)
    times: dict[str, list[float]] = {label: [] for label in statements}
    modules: dict[str, int] = {}
    for _ in range(repeats):
        for label, statement in statements.items():
            seconds, loaded = time_statement(statement)
            times[label].append(seconds)
            modules[label] = loaded

    base = median(times["import pydantic_ai"])
    table = Table(
        f"Import time in a fresh interpreter (median of {repeats})",
        ["statement", "ms", "vs import pydantic_ai", "modules loaded"],
    )
    for label in statements:
        ms = 1e3 * median(times[label])
        table.add(label, ms, ratio(ms / (1e3 * base)), modules[label])
        slug = label.strip().replace(" ", "_").replace("+_", "").replace("*", "star")
        result.metrics[f"{slug}.ms"] = ms
        result.metrics[f"{slug}.ratio"] = ms / (1e3 * base)
    result.tables.append(table)
    result.targets.append(
        Target(
            "from retinue import BaseAgent vs import pydantic_ai",
            median(times["from retinue import BaseAgent"]) / base,
            1.05,
            "x",
        )
    )
    result.notes.append(
        "`import retinue` is lazy (names load on first use); `from retinue import BaseAgent` "
        "loads the agent layer, pydantic-ai included. Plugin discovery reads the installed "
        "entry points; an agent system does it once, when its first agent starts."
    )
    return result


CASE = Case("imports", "Import time vs pydantic-ai, in fresh interpreters", run, order=30)
