"""Our tests keep their state to themselves: they pass in reverse order, and run twice over.

Two tests once leaned on what ran before them: the stuck-actor shutdown test relied on no
earlier test having released a class-level event, and the routing correction test counted
prompts in a module-level dict that only an unrelated test cleared. Their state is now the
test's own (fixtures, closures handed in with `TeamHarness.add(..., model=...)`), and this
runs them in the orders that used to break them.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

REVERSE = """
    def pytest_collection_modifyitems(items):
        items.reverse()
"""


@pytest.mark.slow  # a pytest of its own: importing pydantic-ai alone takes seconds here
def test_the_once_order_dependent_tests_pass_reversed_and_repeated(tmp_path: Path) -> None:
    (tmp_path / "reverse_order.py").write_text(textwrap.dedent(REVERSE))
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(tmp_path), env.get("PYTHONPATH")]))
    routing = "tests/agent/test_routing.py"
    done = subprocess.run(
        [
            *(sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"),
            *("-p", "reverse_order", "--keep-duplicates"),
            "tests/actors/test_runtime.py",
            routing,
            routing,
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert " passed" in done.stdout and "failed" not in done.stdout
