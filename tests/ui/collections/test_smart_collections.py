"""The smart-collection editor: rules made of the library's fields and operators, a live
count of what matches, the library's complaints shown on the row they concern, saving
through collection.create / collection.update, and undo."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from serpent_tk.ui.collections.rule_row import FIELDS, LIBRARY_FIELDS, LIBRARY_OPS, RuleRow
from serpent_tk.ui.collections.rule_values import RuleContext
from serpent_tk.ui.collections.smart_collection_dialog import (
    SmartCollectionDialog,
    where_error_goes,
)
from tests.ui.conftest import App, make_images

pytestmark = pytest.mark.gui


def test_every_field_and_operator_of_the_library_is_offered() -> None:
    assert set(FIELDS) == LIBRARY_FIELDS
    for field, (_, ops) in FIELDS.items():
        if field != "untagged":
            assert set(ops) <= LIBRARY_OPS, field
    assert where_error_goes("rules.rules.2.value") == ("rule", 2)
    assert where_error_goes("rules.rules.0.op") == ("rule", 0)
    assert where_error_goes("name") == ("name", None)
    assert where_error_goes("rules.match") == ("general", None)


@pytest.mark.parametrize("rule", [
    {"field": "tag", "op": "contains", "value": "sk"},
    {"field": "name", "op": "not-contains", "value": "draft"},
    {"field": "rating", "op": "gte", "value": 4},
    {"field": "rating", "op": "is", "value": 0},
    {"field": "kind", "op": "is", "value": "video"},
    {"field": "kind", "op": "is-not", "value": ["image", "document"]},
    {"field": "ext", "op": "is", "value": ["png", "jpg"]},
    {"field": "width", "op": "lte", "value": 800},
    {"field": "size", "op": "gte", "value": 5_000_000},
    {"field": "size", "op": "lte", "value": 1500},
    {"field": "added-at", "op": "before", "value": "2026-05-01"},
    {"field": "added-at", "op": "in-last-days", "value": 30},
    {"field": "folder", "op": "is", "value": "fld_0123456789"},
    {"field": "source-url", "op": "contains", "value": "pinterest"},
    {"field": "untagged", "op": "is", "value": True},
    {"field": "untagged", "op": "is", "value": False},
])
def test_a_rule_row_shows_and_gives_back_every_kind_of_rule(display: str,
                                                            rule: dict[str, Any]) -> None:
    import tkinter as tk

    from serpent_tk.ui.shell.theme import Theme

    root = tk.Tk()
    try:
        context = RuleContext(["sky", "sunset"])
        context.set_folders([("fld_0123456789", "Trips / Alps")])
        row = RuleRow(root, Theme(root, "light"), context, rule)
        assert row.rule() == rule
        assert row.problem() is None
    finally:
        root.destroy()


def test_untagged_is_not_false_reads_as_has_no_tags(display: str) -> None:
    import tkinter as tk

    from serpent_tk.ui.shell.theme import Theme

    root = tk.Tk()
    try:
        row = RuleRow(root, Theme(root, "light"), RuleContext([]),
                      {"field": "untagged", "op": "is-not", "value": False})
        assert row.op_box.get() == "has no tags"
        assert row.rule() == {"field": "untagged", "op": "is", "value": True}
    finally:
        root.destroy()


def open_editor(app: App) -> SmartCollectionDialog:
    window, sidebar = app.window, app.window.sidebar
    app.pump(lambda: sidebar.tree.exists("action:new-smart"), "the New smart collection row")
    sidebar.tree.selection_set("action:new-smart")
    app.pump(lambda: isinstance(window.sidebar_menu.dialog, SmartCollectionDialog),
             "the smart collection editor")
    return window.sidebar_menu.dialog  # type: ignore[return-value]


def test_build_rules_with_a_live_count_save_undo_and_edit(app: App, tmp_path: Path) -> None:
    library_id = app.open_default()
    app.import_images(make_images(tmp_path / "refs", 6))
    window, sidebar = app.window, app.window.sidebar
    keys = [window.grid.source.cell(i).key for i in range(6)]  # type: ignore[union-attr]
    app.gateway_call("asset.tag", {"libraryId": library_id, "assetIds": keys[:3],
                                   "tags": ["sky"]})
    app.gateway_call("asset.update", {"libraryId": library_id, "assetId": keys[0],
                                      "rating": 4})
    app.gateway_call("asset.update", {"libraryId": library_id, "assetId": keys[1],
                                      "rating": 2})
    app.pump(lambda: "sky" in window.browser.known_tags, "the tag known to the window")

    dialog = open_editor(app)
    first = dialog.rows[0]
    app.pump(lambda: dialog.preview.cget("text") == "Finish the rules to see what matches.",
             "the empty rule noticed")
    assert first.error_text == ""                # a rule just added is not red yet
    dialog.confirm()                             # ... until saving is tried
    assert first.error_text == "Type or choose a tag."
    assert dialog.name_error.cget("text") == "Please give it a name."
    assert not dialog.closed
    first.value.var.set("sky")  # type: ignore[attr-defined]
    app.pump(lambda: dialog.preview.cget("text") == "3 assets match", "three skies")
    assert first.error_text == ""

    second = dialog.add_rule()
    second.choose("rating", "gte")
    second.value.stars._choose(3)  # type: ignore[attr-defined]
    app.pump(lambda: dialog.preview.cget("text") == "1 asset matches", "one good sky")

    third = dialog.add_rule()
    third.choose("width", "gte")
    third.value.var.set("wide")  # type: ignore[attr-defined]
    # the library refuses `rules.rules.2.value`; the third row says why
    app.pump(lambda: third.error_text == "Must be a whole number.", "the library's error")
    assert dialog.preview.cget("text") == "Fix the rule marked in red to see what matches."
    assert first.error_text == second.error_text == ""
    app.screenshot("smart-collection-editor-error", dialog)
    third.remove_button.invoke()
    app.pump(lambda: dialog.preview.cget("text") == "1 asset matches", "back to one")
    app.screenshot("smart-collection-editor", dialog)

    dialog.confirm()
    assert dialog.name_error.cget("text") == "Please give it a name."
    dialog.name_var.set("Best skies")
    dialog.confirm()
    app.pump(lambda: dialog.closed, "the editor closed after saving")
    collection = dialog.result
    assert isinstance(collection, dict) and collection["smart"]
    iid = f"collection:{collection['id']}"
    app.pump(lambda: window.browser.scope.iid == iid and window.pages.known
             and window.pages.count() == 1, "the new smart collection, chosen")
    assert sidebar.tree.parent(iid) == "section:smart"
    assert sidebar.tree.set(iid, "count") == "1"
    assert "Collection order" not in window.sort.cget("values")   # rules have no order

    window.actions.undo()
    app.pump(lambda: not sidebar.tree.exists(iid), "the collection gone after undo")
    window.actions.redo()
    app.pump(lambda: sidebar.tree.exists(iid), "the collection back after redo")

    # Edit rules… opens the saved rules; "any" widens it
    scope = sidebar.scope(iid)
    from serpent_tk.ui.menus.action_table import Target

    target = Target((), scope, iid, "sidebar")
    assert "Edit rules…" in window.sidebar_context.entries(target)
    window.sidebar_context.choose(target, "Edit rules…")
    app.pump(lambda: isinstance(window.sidebar_menu.dialog, SmartCollectionDialog)
             and window.sidebar_menu.dialog is not dialog, "the editor for it")
    editor: SmartCollectionDialog = window.sidebar_menu.dialog  # type: ignore[assignment]
    assert [row.rule() for row in editor.rows] == [
        {"field": "tag", "op": "is", "value": "sky"},
        {"field": "rating", "op": "gte", "value": 3}]
    assert editor.name_var.get() == "Best skies"
    app.pump(lambda: editor.preview.cget("text") == "1 asset matches", "the count")
    editor.match_box.set("any")
    editor.changed()
    app.pump(lambda: editor.preview.cget("text") == "3 assets match", "any of them")
    editor.confirm()
    app.pump(lambda: editor.closed and sidebar.tree.set(iid, "count") == "3",
             "the wider collection")
    stored = app.gateway_call("collection.list", {"libraryId": library_id})["items"]
    assert [c["rules"]["match"] for c in stored if c["id"] == collection["id"]] == ["any"]

    # a name that is taken is said under the name, and nothing is created
    clash = open_editor(app)
    clash.rows[0].value.var.set("sky")  # type: ignore[attr-defined]
    clash.name_var.set("best SKIES")
    clash.confirm()
    app.pump(lambda: "already exists" in clash.name_error.cget("text"), "the clash")
    assert not clash.closed
    clash.cancel()
    assert len(app.gateway_call("collection.list", {"libraryId": library_id})["items"]) == 1
