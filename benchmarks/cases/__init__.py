"""The benchmark cases: every module here that defines `CASE` is one.

To add a case, drop a module in this package with a `run(scale) -> CaseResult` function and
`CASE = Case("name", "title", run, order=...)`; `python -m benchmarks` finds it.
"""

from __future__ import annotations

import importlib
import pkgutil

from benchmarks.suite import Case


def discover() -> dict[str, Case]:
    """Every case module's `CASE`, in running order (by `order`, then by name)."""
    found: dict[str, Case] = {}
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        case = getattr(module, "CASE", None)
        if not isinstance(case, Case):
            continue
        if case.name in found:
            raise ValueError(f"two benchmark cases are called {case.name!r}")
        found[case.name] = case
    return dict(sorted(found.items(), key=lambda item: (item[1].order, item[0])))
