"""Gemini's generateContent as the model stand-in speaks it (Gemini CLI): a candidate with one
text or functionCall part, streamed (`:streamGenerateContent?alt=sse`) or whole."""

from __future__ import annotations

import json
from typing import Any

from tests.mcp.clients.model_api import FINAL_TEXT, SIDE_TEXT, ModelApi, send_sse


def function_responses(body: dict[str, Any]) -> list[dict[str, Any]]:
    """Every functionResponse part of the conversation, oldest first."""
    return [part["functionResponse"] for content in body.get("contents", [])
            for part in content.get("parts", []) if "functionResponse" in part]


def offered(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The function declarations the client offers its model."""
    return [declaration for tool in body.get("tools", [])
            for declaration in tool.get("functionDeclarations", [])]


def filled(schema: dict[str, Any]) -> Any:
    """A smallest value of an OpenAPI-style schema (what a side request asks for in JSON:
    Gemini CLI's model router wants a complexity score, its checks a verdict)."""
    kind = str(schema.get("type", "STRING")).upper()
    if kind == "OBJECT":
        properties = schema.get("properties", {})
        return {name: filled(properties[name]) for name in schema.get("required", properties)}
    if "enum" in schema:
        return schema["enum"][0]
    return {"INTEGER": 1, "NUMBER": 1, "BOOLEAN": False, "ARRAY": []}.get(kind, SIDE_TEXT)


def answer(api: ModelApi, handler: Any, body: dict[str, Any]) -> None:
    conversation = bool(offered(body))
    step = api.step(len(function_responses(body))) if conversation else None
    config = body.get("generationConfig") or {}
    schema = config.get("responseJsonSchema") or config.get("responseSchema")
    if step is not None:
        part: dict[str, Any] = {"functionCall": {"name": step.name, "args": step.arguments}}
    elif not conversation and isinstance(schema, dict):
        part = {"text": json.dumps(filled(schema))}
    else:
        part = {"text": FINAL_TEXT if conversation else SIDE_TEXT}
    chunk = {"candidates": [{"content": {"role": "model", "parts": [part]},
                             "finishReason": "STOP", "index": 0}],
             "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5,
                               "totalTokenCount": 15},
             "modelVersion": "stand-in", "responseId": api.next_id("resp_")}
    if ":streamGenerateContent" in handler.path:
        send_sse(handler, [(None, chunk)])
    else:
        handler._json(200, chunk)
