"""retinue.testing layer."""
