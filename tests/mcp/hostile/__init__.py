"""Hostile clients and faults against the real MCP server: session floods, slow connections,
hostile arguments (schema-driven fuzz), a soak of many writers."""
