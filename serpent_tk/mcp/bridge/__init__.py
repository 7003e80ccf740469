"""`serpent-tk mcp-bridge`: the stdio relay and the verified HTTP connections it uses.

Runs in its own small process, started by the MCP client (Claude Desktop).
"""
