"""`python -m benchmarks`: see `benchmarks/run.py` and docs/benchmarks.md."""

import sys

from benchmarks.run import main

sys.exit(main())
