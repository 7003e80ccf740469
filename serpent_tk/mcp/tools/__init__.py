"""What MCP clients call: the tool catalogue, prompts, resources, handlers and output budget.

Runs in the main process, on the MCP thread's asyncio loop (the catalogue is thread-safe).
"""
