"""Run the benchmark suite: `python -m benchmarks [case ...] [--quick]`.

Each case runs in a fresh interpreter of its own (threads, the model loop and memory of one
case cannot disturb the next), prints its tables as soon as it finishes, and a summary of
every target follows. `--markdown FILE` writes the same report, with the machine's
description, as Markdown; `--json FILE` the raw results.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # `python benchmarks/run.py`: make the package importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.suite import CaseResult, Target, render_result, render_targets

REPO_ROOT = Path(__file__).resolve().parent.parent

PACKAGES = (
    "retinue",
    "retinue-team",
    "retinue-mailbox",
    "retinue-planning",
    "pydantic-ai-slim",
    "pydantic",
    "pydantic-core",
    "pykka",
    "pluggy",
)


def run_case(name: str, scale: str) -> dict[str, Any]:
    """Run one case here and return its result as JSON data (the child-interpreter entry)."""
    from benchmarks.cases import discover

    case = discover()[name]
    started = time.perf_counter()
    result = case.run(scale)  # type: ignore[arg-type]
    result.seconds = time.perf_counter() - started
    return result.to_json()


def machine() -> dict[str, str]:
    """What the figures were measured on."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    versions = []
    for package in PACKAGES:
        try:
            versions.append(f"{package} {metadata.version(package)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{package} (not installed)")
    revision = _git("rev-parse", "--short", "HEAD")
    if revision and _git("status", "--porcelain", "--", "core", "plugins"):
        revision += " + uncommitted changes in core/ or plugins/"
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    return {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "cpu": cpu,
        "cores": str(os.cpu_count()),
        "system": f"{platform.system()} {platform.release()}",
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "packages": ", ".join(versions),
        "revision": revision or "unknown",
        "load average at start": " ".join(f"{x:.2f}" for x in load),
    }


def _git(*args: str) -> str:
    import subprocess

    try:
        completed = subprocess.run(
            ["git", *args], cwd=REPO_ROOT, capture_output=True, text=True, check=True
        )
    except (OSError, subprocess.CalledProcessError):
        return ""
    return completed.stdout.strip()


def describe_machine(info: dict[str, str], *, markdown: bool = False) -> str:
    if markdown:
        return "\n".join(f"- **{key}**: {value}" for key, value in info.items())
    return "\n".join(f"{key:>22}: {value}" for key, value in info.items())


def main(argv: list[str] | None = None) -> int:
    from benchmarks.cases import discover
    from benchmarks.measure import run_child

    cases = discover()
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks",
        description="retinue's performance suite: the framework's cost as ratios against "
        "baselines measured in the same run.",
    )
    parser.add_argument("cases", nargs="*", metavar="case", help=f"any of: {', '.join(cases)}")
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="smaller counts: minutes, not ten")
    size.add_argument("--tiny", action="store_true", help="the smallest counts (smoke only)")
    parser.add_argument(
        "--in-process", action="store_true", help="run the cases here, not one interpreter each"
    )
    parser.add_argument("--list", action="store_true", help="list the cases and exit")
    parser.add_argument("--markdown", type=Path, help="also write the report here as Markdown")
    parser.add_argument("--json", type=Path, help="also write the raw results here")
    parser.add_argument(
        "--from-json", type=Path, help="print (and --markdown) saved results instead of running"
    )
    args = parser.parse_args(argv)

    if args.list:
        for case in cases.values():
            print(f"{case.name:<16} {case.title}")
        return 0
    unknown = [name for name in args.cases if name not in cases]
    if unknown:
        parser.error(f"unknown case {', '.join(unknown)}; choose from {', '.join(cases)}")
    if args.from_json:
        return replay(args.from_json, args.markdown)
    scale = "tiny" if args.tiny else "quick" if args.quick else "full"
    selected = args.cases or list(cases)

    info = machine()
    print(f"retinue benchmarks, scale {scale}\n{describe_machine(info)}\n", flush=True)
    results: list[CaseResult] = []
    for name in selected:
        print(f"== {name}: {cases[name].title}", flush=True)
        if args.in_process:
            data = run_case(name, scale)
        else:
            data = run_child("benchmarks.run:run_case", name=name, scale=scale)
        result = CaseResult.from_json(data)
        results.append(result)
        print(render_result(result))
        print(f"({result.seconds:.0f} s)\n", flush=True)

    targets: list[Target] = [t for r in results for t in r.targets]
    if targets:
        print("== summary")
        print(render_targets(targets))
    if args.json:
        payload = {"scale": scale, "machine": info, "results": [r.to_json() for r in results]}
        args.json.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    if args.markdown:
        args.markdown.write_text(markdown_report(scale, info, results), encoding="utf-8")
    return 0


def replay(path: Path, markdown: Path | None) -> int:
    """Print saved results again, and write them as Markdown if asked."""
    payload = json.loads(path.read_text(encoding="utf-8"))
    results = [CaseResult.from_json(data) for data in payload["results"]]
    info: dict[str, str] = payload["machine"]
    print(f"retinue benchmarks, scale {payload['scale']}\n{describe_machine(info)}\n")
    for result in results:
        print(render_result(result) + "\n")
    if markdown:
        markdown.write_text(markdown_report(payload["scale"], info, results), encoding="utf-8")
    return 0


def markdown_report(scale: str, info: dict[str, str], results: list[CaseResult]) -> str:
    parts = [f"Scale `{scale}`.\n", describe_machine(info, markdown=True), ""]
    for result in results:
        parts.append(f"### {result.case}\n")
        parts.append(render_result(result, markdown=True))
        parts.append(f"\n_{result.seconds:.0f} s_\n")
    targets = [t for r in results for t in r.targets]
    if targets:
        parts.append("### Summary of targets\n")
        parts.append(render_targets(targets, markdown=True))
    return "\n".join(parts) + "\n"


if __name__ == "__main__":
    sys.exit(main())
