"""`serpent-tk mcp-bridge`: the stdio relay, its verified way to Serpent, and its stand-in.

The stand-in answers while Serpent is not running. Runs in its own small process, started by
the MCP client (Claude Desktop).
"""
