"""retinue: teams of LLM agents that work as actors."""
