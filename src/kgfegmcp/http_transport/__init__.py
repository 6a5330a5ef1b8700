"""The HTTP wing: stateless Streamable HTTP, its authentication, Host and Origin checks, and its limits."""
