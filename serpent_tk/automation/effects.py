"""The core side effects of a successful command, registered as did-hooks on `Hooks`, the
mechanism plugins use too: the change receipt (what was done, in words, and whether Undo
can take it back), analysis queued after imports, library lifecycle events and the toasts
that tell the window about lifecycle actions it did not perform itself.

Thread-safe: the hooks run on whichever thread completes a call and only publish events and
fill the analysis queue. What to say and do comes from the command's spec (`words`,
`lifecycle`, `imports`, `journaled`), never from its name.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, cast

from serpent_tk.automation.analysis import AnalysisQueue, AnalysisRequest
from serpent_tk.automation.events import ChangeMade, LibraryLifecycle, LifecycleAction, Toast

if TYPE_CHECKING:
    from serpent_tk.automation.hooks import HookContext, Hooks

OWNER = "Serpent"
SOMETHING_CHANGED = "changed the library"  # what a command without words did


class CoreEffects:
    """The did-hooks every command's success runs first, whoever called it."""

    def __init__(self, publish: Callable[[object], None], analysis: AnalysisQueue) -> None:
        self._publish = publish
        self._analysis = analysis

    def install(self, hooks: Hooks) -> None:
        for hook in (self.receipt, self.queue_analysis, self.lifecycle):
            hooks.add_did(OWNER, hook)

    def receipt(self, context: HookContext) -> None:
        """`ChangeMade` for a change to a library: the window's agent toasts follow it."""
        spec = context.spec
        if not spec.writes or context.library_id is None:
            return
        self._publish(ChangeMade(
            library_id=context.library_id, command=spec.name,
            actor_label=context.caller.label, source=context.caller.source,
            change_sequence=context.change_sequence, text=tell(context),
            undoable=spec.journaled, lifecycle=spec.lifecycle))

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
            text = f"{context.caller.label} {tell(context)}."
            self._publish(Toast(text=text, level="info", actor_label=context.caller.label))


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
    words = context.spec.words
    arguments, result = context.arguments, context.result or {}
    values: dict[str, Any] = {**arguments, **result}
    library = library_name(context)
    values["library"] = library
    values["old_library"] = context.library_name if context.library_name != library else ""
    asset_ids = arguments.get("assetIds")
    targets = len(asset_ids) if isinstance(asset_ids, list) else int("assetId" in arguments)
    values["assets"] = count(targets, "asset") if targets else ""
    if context.spec.imports:
        values["files"] = count(len(imported_asset_ids(result)), "file")
    for template in (words.done, words.fallback):
        if template:
            said = _fill(template, values)
            if said is not None:
                return said
    return SOMETHING_CHANGED


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


def _fill(template: str, values: Mapping[str, Any]) -> str | None:
    try:
        return _Filler().vformat(template, (), values)
    except (_Missing, KeyError, IndexError, TypeError):
        return None
