"""The registry's side of plugins: plugin command specs, and which ones MCP may see.

Main process, thread-safe. Finding, starting and isolating plugins is `serpent_tk.plugins`;
this is only what the gateway and the MCP catalogue need to know about them.
"""
