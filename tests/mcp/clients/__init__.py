"""Real AI clients (Claude Code, Gemini CLI, Codex, mcp-remote) driving a running Serpent, each
as its own process with a private home folder, against a local stand-in for its model API."""
