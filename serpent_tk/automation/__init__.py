"""Automation: the registry of every command and the gateway every caller goes through.

`registry` declares the commands, `gateway` runs them (validation → caller → policy →
library binding → challenge → worker → hooks), `policy` maps modes to capabilities,
`challenge` guards dangerous commands, `hooks` is the one completion point for side effects,
`envelope`/`errors` shape every answer, `audit` writes one log line per call; `commands/`
holds the built-in commands' declarations. Main process; the gateway is thread-safe (the Tk
thread, the MCP thread and the CLI all call it).
"""
