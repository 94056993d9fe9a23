"""retinue.cli layer."""
