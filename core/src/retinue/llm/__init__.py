"""retinue.llm layer."""
