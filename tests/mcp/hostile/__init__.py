"""Hostile clients and faults against the real MCP server: session floods, clients that never
end their sessions, slow connections, hostile arguments (schema-driven fuzz), a soak of many
writers."""
