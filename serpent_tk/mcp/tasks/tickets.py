"""The ticket of the tool call being served: a name for its work that the worker echoes on
the call's progress events (`TaskProgress.ticket`), so an MCP task or a progress token can
follow exactly that call. Runs on the listener loop (a context variable: each asyncio task
has its own).
"""

from __future__ import annotations

import secrets
from contextvars import ContextVar

current_ticket: ContextVar[str | None] = ContextVar("serpent_mcp_ticket", default=None)


def new_ticket() -> str:
    return f"mcp-{secrets.token_hex(12)}"
