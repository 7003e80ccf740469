"""The Settings window: General and MCP pages, and the MCP controls it uses. Tk thread only."""
