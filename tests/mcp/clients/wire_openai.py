"""OpenAI's Responses API as the model stand-in speaks it (Codex): a streamed response with
one output item, an assistant message or a function call (model_api.py decides which)."""

from __future__ import annotations

import json
from typing import Any

from tests.mcp.clients.model_api import FINAL_TEXT, SIDE_TEXT, ModelApi, send_sse


def function_outputs(body: dict[str, Any]) -> list[dict[str, Any]]:
    """Every function_call_output item of the conversation, oldest first."""
    return [item for item in body.get("input", []) if isinstance(item, dict)
            and item.get("type") in ("function_call_output", "custom_tool_call_output")]


def offered(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [tool for tool in body.get("tools", []) if isinstance(tool, dict)]


def answer(api: ModelApi, handler: Any, body: dict[str, Any]) -> None:
    conversation = bool(offered(body))
    step = api.step(len(function_outputs(body))) if conversation else None
    response_id = api.next_id("resp_")
    if step is not None:
        item: dict[str, Any] = {"type": "function_call", "id": api.next_id("fc_"),
                                "call_id": api.next_id("call_"), "name": step.name,
                                "arguments": json.dumps(step.arguments), "status": "completed"}
        if step.namespace:
            item["namespace"] = step.namespace
    else:
        item = {"type": "message", "id": api.next_id("msg_"), "role": "assistant",
                "status": "completed", "content": [{
                    "type": "output_text", "annotations": [],
                    "text": FINAL_TEXT if conversation else SIDE_TEXT}]}
    usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
             "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0},
             "total_tokens": 15}
    response = {"id": response_id, "object": "response", "status": "in_progress",
                "model": body.get("model", "stand-in"), "output": []}
    send_sse(handler, [
        ("response.created", {"type": "response.created", "response": response}),
        ("response.output_item.added", {"type": "response.output_item.added",
                                        "output_index": 0, "item": item}),
        ("response.output_item.done", {"type": "response.output_item.done",
                                       "output_index": 0, "item": item}),
        ("response.completed", {"type": "response.completed", "response": {
            **response, "status": "completed", "output": [item], "usage": usage}}),
    ])
