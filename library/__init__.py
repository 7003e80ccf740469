"""The library engine: on-disk format, the worker process that owns it, and its client.

Never imports `serpent_tk`, tkinter or the MCP stack (tests/test_architecture.py).
"""
