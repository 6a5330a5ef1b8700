"""Prompt configurations (versioned data) and the deterministic workflow-instruction renderer."""
