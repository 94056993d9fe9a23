"""retinue's performance suite; run it with `python -m benchmarks` (docs/benchmarks.md)."""
