"""retinue.plugins layer."""
