"""Application services: behaviour beneath the protocol boundary (they never import ``mcp``)."""
