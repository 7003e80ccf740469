"""The inspector's rough edges: its buttons are whole at every width (and the divider stops
before cutting text), a trashed asset leaves it, clearing the selection while scrolled down
shows the hint, tags are suggested while typing."""

from __future__ import annotations

import tkinter as tk
from pathlib import Path

import pytest

from tests.ui.conftest import App, make_images

pytestmark = pytest.mark.gui


def clipped(container: tk.Misc) -> list[str]:
    """Mapped widgets inside `container` that are narrower than they ask to be, or that
    stick out of its right edge."""
    right = container.winfo_rootx() + container.winfo_width()
    found, stack = [], list(container.winfo_children())
    while stack:
        widget = stack.pop()
        stack.extend(widget.winfo_children())
        if not widget.winfo_ismapped() or widget.winfo_class() in ("Canvas", "Text",
                                                                   "TSeparator"):
            continue
        squeezed = widget.winfo_width() < widget.winfo_reqwidth() - 1
        if widget.winfo_class() in ("TEntry", "TFrame", "Frame"):
            squeezed = False                  # entries and frames may be narrower: they fill
        if squeezed or widget.winfo_rootx() + widget.winfo_width() > right + 1:
            text = widget.cget("text") if "text" in widget.configure() else ""
            found.append(f"{widget.winfo_class()} {text!r} {widget.winfo_width()}/"
                         f"{widget.winfo_reqwidth()}")
    return found


def test_buttons_are_whole_at_every_width_and_the_divider_stops_in_time(
        app: App, tmp_path: Path) -> None:
    app.open_default()
    app.import_images(make_images(tmp_path / "refs", 3))
    window = app.window
    key = window.pages.cell(0).key  # type: ignore[union-attr]
    window.grid.select_keys([key])
    app.pump(lambda: window.inspector.asset is not None, "the inspector")
    panes, inspector = window.panes, window.inspector
    for width in (panes.minimum("inspector"), window.theme.px(225), window.theme.px(300),
                  window.theme.px(420)):
        panes.set_width("inspector", width)
        app.settle(0.3)
        assert abs(panes.width("inspector") - width) <= 2
        trash = inspector.trash_button
        assert trash.winfo_ismapped()
        assert trash.winfo_width() >= trash.winfo_reqwidth(), width
        assert not clipped(window.inspector_holder.inner), (width, clipped(
            window.inspector_holder.inner))
        if width == panes.minimum("inspector"):
            window.toasts.clear()
            window.inspector_holder.canvas.yview_moveto(1.0)
            app.shot(tmp_path, "inspector-narrowest-light", window.inspector_holder)
            window.inspector_holder.canvas.yview_moveto(0.0)

    # dragging the divider far right stops at the inspector's minimum
    total = window.paned.winfo_width()
    window.paned.sashpos(1, total - 40)
    window.paned.event_generate("<ButtonRelease-1>", x=total - 40, y=50)
    app.settle(0.3)
    assert panes.width("inspector") >= panes.minimum("inspector")
    assert not clipped(window.inspector_holder.inner)


def test_a_trashed_asset_leaves_the_inspector(app: App, tmp_path: Path) -> None:
    app.open_default()
    app.import_images(make_images(tmp_path / "refs", 3))
    window = app.window
    key = window.pages.cell(0).key  # type: ignore[union-attr]
    window.grid.select_keys([key])
    app.pump(lambda: window.inspector.asset is not None, "the inspector")
    window.inspector.trash_button.invoke()
    app.pump(lambda: window.pages.count() == 2, "the asset leaving the grid")
    app.pump(lambda: window.inspector.asset is None and not window.grid.selected_keys(),
             "the inspector letting it go")
    assert window.inspector.empty.winfo_ismapped()


def test_clearing_the_selection_while_scrolled_down_shows_the_hint(app: App,
                                                                    tmp_path: Path) -> None:
    app.open_default()
    app.import_images(make_images(tmp_path / "refs", 2))
    window = app.window
    app.root.geometry("1200x560")
    window.grid.select_keys([window.pages.cell(0).key])  # type: ignore[union-attr]
    app.pump(lambda: window.inspector.asset is not None, "the inspector")
    holder = window.inspector_holder
    app.settle(0.3)
    holder.canvas.yview_moveto(1.0)
    app.settle(0.2)
    assert holder.canvas.yview()[0] > 0, "the inspector should be scrolled for this test"
    window.grid.clear_selection()
    app.settle(0.3)
    hint = window.inspector.empty
    assert hint.winfo_ismapped()
    top, bottom = holder.winfo_rooty(), holder.winfo_rooty() + holder.winfo_height()
    assert top <= hint.winfo_rooty() and hint.winfo_rooty() + hint.winfo_height() <= bottom


def test_tags_are_suggested_while_typing(app: App, tmp_path: Path) -> None:
    library_id = app.open_default()
    app.import_images(make_images(tmp_path / "refs", 2))
    window = app.window
    first, second = (window.pages.cell(i).key for i in (0, 1))  # type: ignore[union-attr]
    app.gateway_call("asset.tag", {"libraryId": library_id, "assetIds": [first],
                                   "tags": ["sky", "skyline", "sunset", "misty sky"]})
    app.pump(lambda: "skyline" in window.browser.known_tags, "the known tags")
    window.grid.select_keys([second])
    app.pump(lambda: window.inspector.asset is not None
             and window.inspector.asset["id"] == second, "the second asset")
    tags = window.inspector.tags
    tags.entry.focus_force()
    app.settle(0.1)
    for typed in ("s", "sk"):
        tags.entry_var.set(typed)
        tags.entry.event_generate("<KeyRelease>", keysym=typed[-1])
    app.pump(lambda: tags.suggestions.shown, "the suggestions, no Down needed")
    assert tags.suggestions.items == ["sky", "skyline", "misty sky"]
    app.shot(tmp_path, "tag-suggestions-light", window.inspector_holder)
    tags.entry.event_generate("<Down>")
    tags.entry.event_generate("<Down>")
    assert tags.suggestions.highlighted == "skyline"
    tags.entry.event_generate("<Return>")
    app.pump(lambda: tags.chip_names() == ["skyline"], "the chosen tag on the asset")
    assert not tags.suggestions.shown
