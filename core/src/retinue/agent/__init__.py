"""retinue.agent layer."""
