"""What a benchmark case is, what it returns, and how its results print.

A case is one module in `benchmarks/cases/` that defines `CASE = Case(...)`; its `run`
takes a `Scale` and returns a `CaseResult`: tables to print, the key figures as plain
numbers (`metrics`), and the targets those figures are reported against. Nothing here
asserts a time: machines are noisy, so every figure that matters is a ratio against a
baseline measured in the same run.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, get_args

Scale = Literal["full", "quick", "tiny"]
"""`full`: the figures we publish; `quick`: a smoke run in minutes; `tiny`: the pytest smoke."""
SCALES: tuple[str, ...] = get_args(Scale)

Cell = float | int | str | None


@dataclass
class Table:
    """One printed table: a title, column headings and rows of cells."""

    title: str
    columns: list[str]
    rows: list[list[Cell]] = field(default_factory=list)

    def add(self, *cells: Cell) -> None:
        if len(cells) != len(self.columns):
            raise ValueError(f"{self.title}: {len(cells)} cells for {len(self.columns)} columns")
        self.rows.append(list(cells))


@dataclass
class Target:
    """A figure reported against a goal (`value <= limit` meets it); never asserted."""

    label: str
    value: float
    limit: float
    unit: str

    @property
    def met(self) -> bool:
        return self.value <= self.limit


@dataclass
class CaseResult:
    """Everything one case measured."""

    case: str
    scale: str
    tables: list[Table] = field(default_factory=list)
    metrics: dict[str, float] = field(default_factory=dict)
    targets: list[Target] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CaseResult:
        return cls(
            case=data["case"],
            scale=data["scale"],
            tables=[Table(**t) for t in data["tables"]],
            metrics={k: float(v) for k, v in data["metrics"].items()},
            targets=[Target(**t) for t in data["targets"]],
            notes=list(data["notes"]),
            seconds=float(data["seconds"]),
        )


@dataclass(frozen=True)
class Case:
    """A registered benchmark: its name on the command line and the function that runs it."""

    name: str
    title: str
    run: Callable[[Scale], CaseResult]
    order: int = 100
    """Where it runs in the default sequence (lower first); ties go by name."""


# -- printing ---------------------------------------------------------------------------------


#: (smallest magnitude, format) for floats: about three significant digits, thousands marked.
_FLOAT_FORMATS = ((1000.0, ",.0f"), (100.0, ".0f"), (10.0, ".1f"), (1.0, ".2f"), (0.0, ".3f"))


def format_cell(value: Cell) -> str:
    if value is None:
        return "—"
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if not math.isfinite(value):
        return str(value)
    spec = next(spec for floor, spec in _FLOAT_FORMATS if abs(value) >= floor)
    return format(value, spec)


def ratio(value: float) -> str:
    """A ratio as printed in tables: `1.08x`."""
    return f"{value:.2f}x"


def render_table(table: Table, *, markdown: bool = False) -> str:
    cells = [[format_cell(c) for c in row] for row in table.rows]
    widths = [
        max([len(col), *(len(row[i]) for row in cells)]) for i, col in enumerate(table.columns)
    ]

    def line(values: Sequence[str]) -> str:
        padded = [
            v.ljust(w) if i == 0 else v.rjust(w)
            for i, (v, w) in enumerate(zip(values, widths, strict=True))
        ]
        return ("| " + " | ".join(padded) + " |") if markdown else "  ".join(padded)

    out = [f"**{table.title}**\n" if markdown else table.title]
    out.append(line(table.columns))
    if markdown:
        rules = [
            ":" + "-" * (w + 1) if i == 0 else "-" * (w + 1) + ":" for i, w in enumerate(widths)
        ]
        out.append("|" + "|".join(rules) + "|")
    else:
        out.append("  ".join("-" * w for w in widths))
    out.extend(line(row) for row in cells)
    return "\n".join(out)


def render_result(result: CaseResult, *, markdown: bool = False) -> str:
    parts = [render_table(t, markdown=markdown) for t in result.tables]
    if result.targets:
        parts.append(render_targets(result.targets, markdown=markdown))
    if result.notes:
        bullet = "- " if markdown else "  * "
        parts.append("\n".join(bullet + note for note in result.notes))
    return "\n\n".join(parts)


def render_targets(targets: Sequence[Target], *, markdown: bool = False) -> str:
    table = Table("Targets (reported, not asserted)", ["target", "measured", "goal", "met"])
    for t in targets:
        table.add(t.label, _with_unit(t.value, t.unit), f"≤ {_with_unit(t.limit, t.unit)}", t.met)
    return render_table(table, markdown=markdown)


def _with_unit(value: float, unit: str) -> str:
    if unit == "x":
        return ratio(value)
    return f"{format_cell(value)} {unit}"
