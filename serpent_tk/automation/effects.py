"""The core side effects of a successful command, registered as did-hooks on `Hooks`, the
mechanism plugins use too: the change receipt (what was done, in words, and whether Undo
can take it back), analysis queued after imports, library lifecycle events and the toasts
that tell the window about lifecycle actions it did not perform itself.

Thread-safe: the hooks run on whichever thread completes a call and only publish events and
fill the analysis queue. What to say and do comes from the command's spec (`words`,
`lifecycle`, `imports`, `journaled`), never from its name.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, cast

from serpent_tk.automation.analysis import AnalysisQueue, AnalysisRequest
from serpent_tk.automation.events import (
    ChangeMade,
    LibraryLifecycle,
    LifecycleAction,
    Said,
    Toast,
)

if TYPE_CHECKING:
    from serpent_tk.automation.hooks import HookContext, Hooks

OWNER = "Serpent"
SOMETHING_CHANGED = "changed the library"  # what a command without words did
# values counted in words ("3 assets"): a `Said` carries the number, English says the noun;
# no assets named is no `{assets}` at all (the fallback is said), an import of none is "0 files"
COUNTED = {"assets": "asset", "files": "file"}
NONE_IS_MISSING = frozenset({"assets"})


class CoreEffects:
    """The did-hooks every command's success runs first, whoever called it."""

    def __init__(self, publish: Callable[[object], None], analysis: AnalysisQueue) -> None:
        self._publish = publish
        self._analysis = analysis

    def install(self, hooks: Hooks) -> None:
        for hook in (self.receipt, self.queue_analysis, self.lifecycle):
            hooks.add_did(OWNER, hook)

    def receipt(self, context: HookContext) -> None:
        """`ChangeMade` for a change to a library: the window's agent toasts follow it.
        Not for Serpent's internal commands (a plugin analyser's findings recorded in the
        background, batch after batch, are no change anyone made)."""
        spec = context.spec
        if not spec.writes or spec.internal or context.library_id is None:
            return
        said = told(context)
        self._publish(ChangeMade(
            library_id=context.library_id, command=spec.name,
            actor_label=context.caller.label, source=context.caller.source,
            change_sequence=context.change_sequence, text=english(said),
            undoable=spec.journaled, lifecycle=spec.lifecycle, said=said))

    def queue_analysis(self, context: HookContext) -> None:
        if not context.spec.imports or context.library_id is None or not context.result:
            return
        asset_ids = imported_asset_ids(context.result)
        if asset_ids:
            self._analysis.enqueue(AnalysisRequest(
                library_id=context.library_id, asset_ids=asset_ids, reason="import",
                actor_label=context.caller.label, source=context.caller.source))

    def lifecycle(self, context: HookContext) -> None:
        action = context.spec.lifecycle
        result = context.result or {}
        library_id = context.library_id or result.get("libraryId")
        if action is None or not library_id:
            return
        if action in ("closed", "deleted"):
            self._analysis.discard_library(library_id)
        count = len(imported_asset_ids(result)) if context.spec.imports else None
        self._publish(LibraryLifecycle(
            library_id=library_id, name=library_name(context),
            action=cast(LifecycleAction, action), actor_label=context.caller.label,
            source=context.caller.source,
            path=str(result.get("path", "")), count=count))
        if context.caller.source != "ui":
            said = Said("{actor} {change}.", {"actor": context.caller.label,
                                               "change": told(context)})
            self._publish(Toast(text=english(said), level="info",
                                actor_label=context.caller.label, said=said))


def imported_asset_ids(result: Mapping[str, Any]) -> tuple[str, ...]:
    return tuple(item["assetId"] for item in result.get("items", ())
                 if isinstance(item, dict) and item.get("status") == "imported"
                 and item.get("assetId"))


def library_name(context: HookContext) -> str:
    """The library's name after the command (a lifecycle command's result names it: the new
    name of a rename, the library just opened)."""
    if context.spec.lifecycle is not None and context.result:
        return str(context.result.get("name") or context.library_name)
    return context.library_name


def tell(context: HookContext) -> str:
    """What the command did, for people: its spec's `Words` filled in from the call
    ("created the folder “Skies”", "tagged 3 assets with “sky”")."""
    return english(told(context))


def told(context: HookContext) -> Said:
    """`tell`'s words as a template and its values (the window says them in its language):
    the spec's `done` when everything it names is there, else its `fallback`."""
    words = context.spec.words
    arguments, result = context.arguments, context.result or {}
    values: dict[str, Any] = {**arguments, **result}
    library = library_name(context)
    values["library"] = library
    values["old_library"] = context.library_name if context.library_name != library else ""
    asset_ids = arguments.get("assetIds")
    values["assets"] = len(asset_ids) if isinstance(asset_ids, list) \
        else int("assetId" in arguments)
    if context.spec.imports:
        values["files"] = len(imported_asset_ids(result))
    for template in (words.done, words.fallback):
        if template and fill(template, _in_english(values)) is not None:
            fallback = words.fallback if template != words.fallback else ""
            return Said(template, _named_in(template, values), fallback)
    return Said(SOMETHING_CHANGED)


def english(said: Said) -> str:
    """A `Said` in English (what MCP clients, logs and `text` fields carry)."""
    for template in (said.template, said.fallback):
        if template:
            text = fill(template, _in_english(said.values))
            if text is not None:
                return text
    return SOMETHING_CHANGED


def _in_english(values: Mapping[str, Any]) -> dict[str, Any]:
    shown = dict(values)
    for key, noun in COUNTED.items():
        number = shown.get(key)
        if isinstance(number, int):
            shown[key] = "" if not number and key in NONE_IS_MISSING else count(number, noun)
    for key, value in shown.items():
        if isinstance(value, Said):
            shown[key] = english(value)
    return shown


def _named_in(template: str, values: Mapping[str, Any]) -> dict[str, Any]:
    """The values `template` names (`{entry[summary]}` names `entry`)."""
    roots = {re.split(r"[.\[]", name)[0] for _text, name, _spec, _conv
             in string.Formatter().parse(template) if name}
    return {key: values[key] for key in roots if key in values}


def count(n: int, singular: str) -> str:
    return f"{n:,} {singular if n == 1 else singular + 's'}"


class _Missing(Exception):
    pass


class _Filler(string.Formatter):
    """`str.format` that refuses an empty value (the template then falls back) and says a
    list as `a, b, c`."""

    def get_value(self, key: int | str, args: Any, kwargs: Mapping[str, Any]) -> Any:
        if isinstance(key, int) or key not in kwargs:
            raise _Missing
        return kwargs[key]

    def format_field(self, value: Any, format_spec: str) -> str:
        if value is None or value == "" or value == [] or isinstance(value, dict):
            raise _Missing
        if isinstance(value, list):
            value = ", ".join(str(item) for item in value)
        return str(super().format_field(value, format_spec))


def fill(template: str, values: Mapping[str, Any]) -> str | None:
    """`template` filled with `values`, or None when a field is missing or empty (the
    caller then says its fallback). The window fills its translations with it too."""
    try:
        return _Filler().vformat(template, (), values)
    except (_Missing, KeyError, IndexError, TypeError):
        return None
