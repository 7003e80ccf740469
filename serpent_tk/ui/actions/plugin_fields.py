"""The arguments a person types for a plugin command, read from the command's input schema.

`fields_of(schema)` turns the registry's JSON schema into `FieldSpec`s for the simple
properties (text, whole number, number, yes/no, one of a list, a list of words, a folder or a
collection); the targets, the library and the gateway's own fields are the window's to fill.
`FieldInput` is one field's widget and reads its value back. Tk thread only (`fields_of` is
pure and thread-safe).
"""

from __future__ import annotations

import re
import tkinter as tk
from collections.abc import Iterable
from dataclasses import dataclass
from tkinter import ttk
from typing import Any, Literal

from serpent_tk.ui.language.translate import N_, _, known

# filled by the window, never typed: the library, the targets, the gateway's extra fields
TARGET_KEYS = ("assetIds", "folderIds", "collectionIds")
WINDOW_KEYS = frozenset({"libraryId", "idempotencyKey", "confirmChallenge", "stateToken",
                         *TARGET_KEYS})
PREVIEW_KEY = "dryRun"  # a command with this yes/no field can show what it would do
NONE_CHOICE = N_("(none)")

Kind = Literal["text", "integer", "number", "boolean", "choice", "words", "folder",
               "collection"]
_ID_PATTERNS = {"^fld_": "folder", "^col_": "collection"}


class FieldProblem(ValueError):
    """What is wrong with a typed value, in words for the person."""


@dataclass(frozen=True)
class FieldSpec:
    key: str  # the argument's name (camelCase)
    label: str  # "Cell size"
    kind: Kind
    required: bool
    nullable: bool
    default: Any
    description: str
    choices: tuple[str, ...] = ()
    minimum: float | None = None
    maximum: float | None = None


@dataclass(frozen=True)
class Fields:
    """What the dialog asks, and what it cannot (required properties of other shapes)."""

    fields: tuple[FieldSpec, ...]
    previewable: bool  # takes dryRun
    unsupported: tuple[str, ...]  # required keys the window cannot ask for


def label_for(key: str, title: str | None) -> str:
    """`cellSize` → "Cell size", `folderId` → "Folder"; a title the plugin wrote wins over
    the one pydantic makes up ("Cellsize")."""
    if title and title.replace(" ", "").casefold() != key.casefold():
        return title
    words = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", key).split()
    if len(words) > 1 and words[-1] in ("Id", "Ids"):
        words = words[:-1]
    text = " ".join(words).lower()
    return text[:1].upper() + text[1:]


def _resolve(node: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        return {**defs.get(ref.removeprefix("#/$defs/"), {}),
                **{k: v for k, v in node.items() if k != "$ref"}}
    if isinstance(node.get("allOf"), list) and len(node["allOf"]) == 1:
        inner = _resolve(node["allOf"][0], defs)
        return {**inner, **{k: v for k, v in node.items() if k != "allOf"}}
    return node


def _field(key: str, node: dict[str, Any], required: bool,
           defs: dict[str, Any]) -> FieldSpec | None:
    node = _resolve(node, defs)
    nullable = False
    shape = node
    options = node.get("anyOf")
    if isinstance(options, list):
        kept = [_resolve(o, defs) for o in options if o.get("type") != "null"]
        nullable = len(kept) < len(options)
        if len(kept) != 1:
            return None
        shape = kept[0]
    kind: Kind | None = None
    choices: tuple[str, ...] = ()
    kind_of_type = {"string": "text", "integer": "integer", "number": "number",
                    "boolean": "boolean"}
    if isinstance(shape.get("enum"), list) and all(isinstance(v, str) for v in shape["enum"]):
        kind, choices = "choice", tuple(shape["enum"])
    elif shape.get("type") == "string" and str(shape.get("pattern", ""))[:5] in _ID_PATTERNS:
        kind = _ID_PATTERNS[str(shape["pattern"])[:5]]  # type: ignore[assignment]
    elif shape.get("type") in kind_of_type:
        kind = kind_of_type[shape["type"]]  # type: ignore[assignment]
    elif shape.get("type") == "array" and (shape.get("items") or {}).get("type") == "string" \
            and "pattern" not in shape["items"]:
        kind = "words"
    if kind is None:
        return None
    return FieldSpec(key=key, label=label_for(key, node.get("title")), kind=kind,
                     required=required, nullable=nullable, default=node.get("default"),
                     description=str(node.get("description") or ""), choices=choices,
                     minimum=shape.get("minimum"), maximum=shape.get("maximum"))


def fields_of(schema: dict[str, Any]) -> Fields:
    """The fields a person fills in for a command with this input schema (in its order)."""
    defs = schema.get("$defs") or {}
    required = set(schema.get("required") or ())
    fields, unsupported = [], []
    properties: dict[str, Any] = schema.get("properties") or {}
    for key, node in properties.items():
        if key in WINDOW_KEYS or key == PREVIEW_KEY:
            continue
        spec = _field(key, node, key in required, defs)
        if spec is not None:
            fields.append(spec)
        elif key in required:
            unsupported.append(key)
    preview = properties.get(PREVIEW_KEY) or {}
    return Fields(tuple(fields), _resolve(preview, defs).get("type") == "boolean",
                  tuple(unsupported))


class FieldInput:
    """One field's label, widget and explanation, in rows of `parent`'s grid."""

    def __init__(self, parent: ttk.Frame, spec: FieldSpec, row: int, px: Any) -> None:
        self.spec = spec
        self.variable: tk.BooleanVar | tk.StringVar
        self._ids: dict[str, str] = {}
        name = known(spec.label)
        label = ttk.Label(parent, text=name if spec.kind == "boolean"
                          else _("{label}:").format(label=name))
        self._shown_choices: dict[str, str] = {}     # as the menu says it -> the value
        if spec.kind == "boolean":
            self.variable = tk.BooleanVar(master=parent, value=bool(spec.default))
            self.widget: ttk.Widget = ttk.Checkbutton(parent, text=name,
                                                      variable=self.variable)
            self.widget.grid(row=row, column=1, sticky="w", pady=(px(6), 0))
        else:
            label.grid(row=row, column=0, sticky="nw", padx=(0, px(10)), pady=(px(9), 0))
            initial = "" if spec.default is None else spec.default
            if spec.kind == "words" and isinstance(initial, list):
                initial = ", ".join(str(w) for w in initial)
            self._shown_choices = {known(c): c for c in spec.choices}
            shown = {c: s for s, c in self._shown_choices.items()}
            self.variable = tk.StringVar(master=parent, value=shown.get(str(initial),
                                                                        str(initial)))
            if spec.kind in ("choice", "folder", "collection"):
                values = list(self._shown_choices)
                if spec.kind != "choice" or spec.nullable:
                    values = [_(NONE_CHOICE), *values]
                    if not initial:
                        self.variable.set(_(NONE_CHOICE))
                self.widget = ttk.Combobox(parent, textvariable=self.variable, values=values,
                                           state="readonly", width=34)
            else:
                self.widget = ttk.Entry(parent, textvariable=self.variable, width=36)
            self.widget.grid(row=row, column=1, sticky="we", pady=(px(6), 0))
        hint = known(spec.description)
        if spec.kind == "words":
            hint = (hint + " " if hint else "") + _("Separate them with commas.")
        if hint:
            ttk.Label(parent, text=hint, style="Caption.TLabel", wraplength=px(380),
                      justify="left").grid(row=row + 1, column=1, sticky="w")

    def offer(self, choices: Iterable[tuple[str, str]]) -> None:
        """The folders or collections to choose from: (id, name)."""
        self._ids = {}
        for entity_id, name in choices:
            shown = name if name not in self._ids else f"{name} ({entity_id})"
            self._ids[shown] = entity_id
        if isinstance(self.widget, ttk.Combobox):
            self.widget.configure(values=[_(NONE_CHOICE), *self._ids])

    def read(self) -> tuple[bool, Any]:
        """(given, value): given is False for an optional field left empty (its default
        applies). Raises `FieldProblem` for a value that cannot be right."""
        spec = self.spec
        raw = self.variable.get()
        if spec.kind == "boolean":
            return True, bool(raw)
        text = str(raw)
        if spec.kind in ("folder", "collection"):
            if text in ("", _(NONE_CHOICE)):
                return self._empty()
            return True, self._ids.get(text, text)
        if spec.kind == "choice":
            if text in ("", _(NONE_CHOICE)):
                return self._empty()
            return True, self._shown_choices.get(text, text)
        if spec.kind == "words":
            words = [w.strip() for w in text.split(",") if w.strip()]
            return (True, words) if words else self._empty()
        if not text.strip():
            return self._empty()
        if spec.kind == "text":
            return True, text
        try:
            number: float = int(text.strip()) if spec.kind == "integer" else float(text)
        except ValueError:
            said = _("{label}: type a whole number.") if spec.kind == "integer" \
                else _("{label}: type a number.")
            raise FieldProblem(said.format(label=known(spec.label))) from None
        if spec.minimum is not None and number < spec.minimum or \
                spec.maximum is not None and number > spec.maximum:
            raise FieldProblem(_("{label}: from {low} to {high}.").format(
                label=known(spec.label), low=_plain(spec.minimum), high=_plain(spec.maximum)))
        return True, number

    def _empty(self) -> tuple[bool, Any]:
        if self.spec.required:
            raise FieldProblem(_("{label}: please fill it in.").format(
                label=known(self.spec.label)))
        return False, None


def _plain(value: float | None) -> str:
    if value is None:
        return _("any")
    return f"{value:g}"
