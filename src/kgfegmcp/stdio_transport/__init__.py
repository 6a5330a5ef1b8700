"""The STDIO transport: the server local hosts and the MCPB bundle start, and its bounded line reader."""
