"""Automation: the registry of every command and the gateway every caller goes through.

`registry` declares the commands (a worker command's models, risk, words and worker
function are its one declaration in `library.catalogue`; the registry adds what MCP and the
window need), `gateway` runs them (validation → caller → policy → library binding →
challenge → the worker or the spec's handler → hooks), `policy` maps modes to capabilities,
`challenge` guards dangerous commands, `hooks` is the one completion point (will/did
hooks), `effects` the core side effects registered there as did-hooks, `envelope`/`errors`
shape every answer, `audit` writes one log line per call; `commands/` holds the built-in
commands' declarations and the handlers of those the main process answers itself. Main
process; the gateway is thread-safe (the Tk thread, the MCP thread and the CLI all call
it).
"""
