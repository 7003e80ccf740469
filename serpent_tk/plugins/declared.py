"""Pydantic models made from the JSON schemas a plugin declares, so the registry, the gateway
and the MCP catalogue treat a plugin command like any of Serpent's own.

Main process; thread-safe (the models are immutable once made). The plugin's code never runs
here: its models arrive as JSON schemas from its host, are checked with `jsonschema` (Draft
2020-12, formats too) and advertised as they are, except for the targets rule, which is
Serpent's: every call names `assetIds`, `folderIds` or `collectionIds` (non-empty), with the
library in `libraryId` (added by the registry); the app never fills them from the window's
focus or a session. A bad argument is a pydantic `ValidationError` naming the field, so the
gateway answers `INVALID_ARGUMENT` as it does for every command.
"""

from __future__ import annotations

import copy
import re
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, create_model, model_validator
from pydantic_core import InitErrorDetails, PydanticCustomError, ValidationError

if TYPE_CHECKING:  # jsonschema costs ~90 ms to import: only when a plugin declares a command
    from jsonschema.exceptions import ValidationError as SchemaError

TARGETS = {"assetIds": "asset_ids", "folderIds": "folder_ids", "collectionIds": "collection_ids"}
MAX_TARGETS = 1000
ID_ITEMS = {"type": "string", "minLength": 1, "maxLength": 64}
RESERVED = ("libraryId", "idempotencyKey", "confirmChallenge", "stateToken", "cursor")


class SchemaRefused(ValueError):
    """A plugin's schema Serpent will not offer (the message is for the plugin's author)."""


def input_schema(declared: dict[str, Any]) -> dict[str, Any]:
    """The plugin's input schema with Serpent's targets rule applied."""
    schema = copy.deepcopy(declared)
    properties: dict[str, Any] = schema.get("properties") or {}
    if schema.get("type", "object") != "object" or not isinstance(properties, dict):
        raise SchemaRefused("the input is not an object with properties")
    taken = [name for name in RESERVED if name in properties]
    if taken:
        raise SchemaRefused(f"the input may not declare {', '.join(taken)} (Serpent adds them)")
    targets = [name for name in TARGETS if name in properties]
    if not targets:
        raise SchemaRefused("the input takes none of assetIds, folderIds, collectionIds")
    for name in targets:
        declared_items, most = _array_parts(properties[name])
        described = properties[name].get("description")
        properties[name] = {"type": "array", "items": declared_items or ID_ITEMS,
                            "minItems": 1, "maxItems": min(most or MAX_TARGETS, MAX_TARGETS)}
        if described:
            properties[name]["description"] = described
    required = [r for r in schema.get("required", []) if r not in targets]
    if len(targets) == 1:
        required.append(targets[0])
    else:
        schema["anyOf"] = [{"required": [name]} for name in targets]
    schema["properties"] = properties
    schema["required"] = required
    schema["additionalProperties"] = False
    schema.pop("title", None)
    return schema


def _array_parts(prop: dict[str, Any]) -> tuple[dict[str, Any] | None, int | None]:
    """The items schema and maxItems of an array property (also inside pydantic's
    `anyOf: [array, null]` for an optional list)."""
    for branch in [prop, *prop.get("anyOf", [])]:
        if isinstance(branch, dict) and branch.get("type") == "array":
            items = branch.get("items")
            most = branch.get("maxItems")
            return (items if isinstance(items, dict) else None,
                    most if isinstance(most, int) else None)
    return None, None


def output_schema(declared: dict[str, Any]) -> dict[str, Any]:
    schema = copy.deepcopy(declared)
    if schema.get("type", "object") != "object":
        raise SchemaRefused("the output is not an object")
    schema.pop("title", None)
    return schema


def model_for(title: str, schema: dict[str, Any]) -> type[BaseModel]:
    """A model that validates with `schema` and advertises exactly it. Target fields (if the
    schema has them) are typed fields, so the registry can check that the command takes
    them; every other argument passes through as given."""
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError as SchemaError
    from jsonschema.exceptions import best_match

    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as error:
        raise SchemaRefused(f"its schema is not valid JSON Schema: {error.message}") from None
    checker = Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)
    advertised = copy.deepcopy(schema)
    known = set(schema.get("properties") or {})

    class Declared(BaseModel):
        model_config = ConfigDict(extra="allow", frozen=True)

        @model_validator(mode="before")
        @classmethod
        def _valid_by_schema(cls, data: Any) -> Any:
            errors = list(checker.iter_errors(data))
            targets = [e for e in errors if e.validator == "anyOf" and not e.absolute_path]
            problem = targets[0] if targets else best_match(errors)
            if problem is not None:
                raise _as_validation_error(title, problem, data, known)
            return data

        @classmethod
        def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
            return copy.deepcopy(advertised)

    fields: dict[str, Any] = {
        python: (list[str] | None, Field(default=None, alias=wire))
        for wire, python in TARGETS.items() if wire in known}
    model: type[BaseModel] = create_model(_class_name(title), __base__=Declared, **fields)
    return model


def _class_name(title: str) -> str:
    return "".join(part.capitalize() for part in re.split(r"[^A-Za-z0-9]+", title) if part)


def _as_validation_error(title: str, problem: SchemaError, data: Any,
                         known: set[str]) -> ValidationError:
    location: tuple[str | int, ...] = tuple(problem.absolute_path)
    message = problem.message
    if problem.validator == "required" and not location:
        missing = re.match(r"'([^']+)' is a required property", message)
        location, message = ((missing.group(1),), "required") if missing else ((), message)
    elif problem.validator == "additionalProperties" and isinstance(data, dict):
        extra = sorted(set(data) - known)
        location, message = ((extra[0],), "not an argument of this command") if extra else (
            location, message)
    elif problem.validator == "anyOf" and not location:
        message = "give at least one of " + ", ".join(
            name for name in TARGETS if name in known)
    if len(message) > 200:
        message = message[:200] + "…"
    return ValidationError.from_exception_data(title, [InitErrorDetails(
        type=PydanticCustomError("plugin_schema", "{problem}", {"problem": message}),
        loc=location, input=problem.instance)])
