"""`python -m retinue`: the same as the `retinue` command."""

from retinue.cli.main import main

raise SystemExit(main())
