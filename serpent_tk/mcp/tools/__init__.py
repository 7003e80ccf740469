"""What MCP clients call: the tool catalogue, the handlers, the output budget and its cuts.

Runs in the main process, on the MCP thread's asyncio loop (the catalogue is thread-safe).
"""
