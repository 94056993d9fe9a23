"""Run one measurement in a fresh interpreter: `python -m benchmarks.child module:func JSON`.

The function is called with the JSON object as keyword arguments; its result is printed as
JSON on the last line of stdout (anything printed before it is ignored by the parent).
"""

from __future__ import annotations

import importlib
import json
import sys


def main(argv: list[str]) -> int:
    target, raw = argv
    module_name, _, function_name = target.partition(":")
    function = getattr(importlib.import_module(module_name), function_name)
    result = function(**json.loads(raw))
    sys.stdout.flush()
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
