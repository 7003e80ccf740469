"""The library engine: on-disk format, the worker process that owns it, and its client.

Never imports `serpent_tk`, tkinter or the MCP stack (tests/test_architecture.py). `worker/`
runs in the worker process (one per open library); the rest is the main process's side
(`client` + `worker_handle`, `events`, `import_replays`) and what both processes import
(`catalogue` of the worker's commands, `protocol` with the change event, `schemas/`,
`errors`, `pathrules`, `private_paths`, `idempotency`, `library_folder`, `durable`,
`deletion`, `units`).
"""
