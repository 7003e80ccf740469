"""Anthropic's Messages API as the model stand-in speaks it (Claude Code): a streamed
assistant message with one text or tool_use block (model_api.py decides which)."""

from __future__ import annotations

import json
from typing import Any

from tests.mcp.clients.model_api import FINAL_TEXT, SIDE_TEXT, ModelApi, send_sse


def tool_results(body: dict[str, Any]) -> list[dict[str, Any]]:
    """Every tool_result block of the conversation, oldest first."""
    return [block for message in body.get("messages", []) if message.get("role") == "user"
            and isinstance(message.get("content"), list)
            for block in message["content"] if block.get("type") == "tool_result"]


def answer(api: ModelApi, handler: Any, body: dict[str, Any]) -> None:
    step = api.step(len(tool_results(body))) if body.get("tools") else None
    if step is not None:
        block: dict[str, Any] = {"type": "tool_use", "id": api.next_id("toolu_"),
                                 "name": step.name, "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(step.arguments)}
        stop = "tool_use"
    else:
        text = FINAL_TEXT if body.get("tools") else SIDE_TEXT
        block = {"type": "text", "text": ""}
        delta = {"type": "text_delta", "text": text}
        stop = "end_turn"
    message = {"id": api.next_id("msg_"), "type": "message", "role": "assistant",
               "model": body.get("model", "stand-in"), "content": [], "stop_reason": None,
               "stop_sequence": None, "usage": {"input_tokens": 10, "output_tokens": 1}}
    events: list[tuple[str | None, dict[str, Any]]] = [
        ("message_start", {"type": "message_start", "message": message}),
        ("content_block_start", {"type": "content_block_start", "index": 0,
                                 "content_block": block}),
        ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ("message_delta", {"type": "message_delta",
                           "delta": {"stop_reason": stop, "stop_sequence": None},
                           "usage": {"output_tokens": 5}}),
        ("message_stop", {"type": "message_stop"}),
    ]
    if body.get("stream"):
        send_sse(handler, events)
        return
    whole = dict(message, stop_reason=stop, content=[
        {**block, "input": json.loads(delta["partial_json"])} if block["type"] == "tool_use"
        else {"type": "text", "text": delta["text"]}])
    handler._json(200, whole)
