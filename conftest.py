"""Every test suite of this repository runs with retinue's pytest plugin, which is opt-in.

This file sits at the root so that each tox environment picks it up, whichever directory it
points pytest at (`tests`, `plugins/<name>/tests`, `benchmarks`).
"""

pytest_plugins = ["retinue.testing.plugin"]
