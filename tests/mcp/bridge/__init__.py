"""`serpent-tk mcp-bridge` as stdio clients start it: the relay, whom it trusts with its token,
and a client started before Serpent (Python and TypeScript SDKs); bridges run as processes."""
