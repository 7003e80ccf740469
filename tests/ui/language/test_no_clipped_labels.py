"""No label is cut off, in English or in 简体中文 (issue 27 saw "Cance", "Mode: Aut", "Tools:
Essent"): every button, menu button, check box, radio button and one-line label of the main
window (also at 800 × 560) and of its dialogs is at least as wide as its words."""

from __future__ import annotations

import contextlib
import tkinter as tk
import tkinter.font as tkfont
from pathlib import Path
from tkinter import ttk

import pytest

from serpent_tk.ui.actions.studio_move import ask_move_to_studio
from serpent_tk.ui.browser.layouts import choice as layout_choice
from tests.ui.conftest import App, make_images

pytestmark = pytest.mark.gui

MEASURED = (ttk.Button, ttk.Menubutton, ttk.Checkbutton, ttk.Radiobutton, ttk.Label, tk.Label,
            tk.Button)


def _font(widget: tk.Misc) -> tkfont.Font:
    name = ""
    with contextlib.suppress(tk.TclError):
        name = str(widget.cget("font"))
    if not name and isinstance(widget, ttk.Widget):
        style = str(widget.cget("style")) or widget.winfo_class()
        name = str(ttk.Style(widget).lookup(style, "font")) or \
            str(ttk.Style(widget).lookup(widget.winfo_class(), "font"))
    return tkfont.Font(root=widget, font=name or "TkDefaultFont")


def clipped(top: tk.Misc) -> list[str]:
    """Mapped widgets of `top` narrower than their words (or than they asked to be)."""
    found = []
    stack: list[tk.Misc] = [top]
    while stack:
        widget = stack.pop()
        stack.extend(widget.winfo_children())
        if not isinstance(widget, MEASURED) or not widget.winfo_ismapped():
            continue
        text = str(widget.cget("text"))
        if not text.strip() or "\n" in text:
            continue
        try:
            if int(str(widget.cget("wraplength")) or 0) > 0:
                continue                              # it wraps: never cut
        except tk.TclError:
            pass
        words = _font(widget).measure(text)
        width = widget.winfo_width()
        natural = _natural_width(widget)
        if width < words or width < natural - 2:
            found.append(f"{text!r}: {width} px where its words need {natural} px "
                         f"({widget.winfo_class()} {widget})")
    return found


def cut_headings(header: tk.Canvas) -> list[str]:
    """The list's headings (canvas text) wider than their column."""
    found = []
    columns = {ident: width for ident, _x, width, _anchor in header.columns}  # type: ignore[attr-defined]
    for item in header.find_all():
        if header.type(item) != "text":
            continue
        ident = header.gettags(item)[0]
        x0, _y0, x1, _y1 = header.bbox(item)
        if x1 - x0 - 2 > columns[ident]:
            found.append(f"{header.itemcget(item, 'text')!r}: {x1 - x0} px in a column of "
                         f"{columns[ident]:.0f} px")
    return found


def _natural_width(widget: tk.Misc) -> int:
    """The width the widget asks for with no width of its own set (its words, padding and
    indicator): a `width=` in characters shorter than the words cuts them."""
    fixed = widget.cget("width")
    if str(fixed) in ("", "0"):
        return widget.winfo_reqwidth()
    widget.configure(width=0)
    widget.update_idletasks()
    natural = widget.winfo_reqwidth()
    widget.configure(width=fixed)
    widget.update_idletasks()
    return natural


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_no_label_is_cut_off(app: App, tmp_path: Path, language: str) -> None:
    library_id = app.open_default()
    app.import_images(make_images(tmp_path / "refs", 4))
    window = app.window
    if language != "en":
        window = app.window = window.change_language(language)
        app.pump(lambda: window.pages.known, "the window in Chinese")
    keys = [window.pages.cell(i).key for i in range(4)]  # type: ignore[union-attr]
    app.gateway_call("collection.create", {"libraryId": library_id, "name": "Best",
                                           "rules": {"rules": [{"field": "rating", "op": "gte",
                                                                "value": 3}]}})
    app.window.services.credentials.create("Cursor", "auto", "essentials")  # type: ignore[union-attr]
    window.grid.select_keys([keys[0]])
    app.pump(lambda: window.inspector.asset is not None, "the inspector")
    problems: dict[str, list[str]] = {}

    def look(name: str, top: tk.Misc) -> None:
        app.settle(0.4)
        problems[name] = clipped(top)

    look("main", app.root)
    layout_choice.set_layout(window, "list")
    app.pump(lambda: window.grid.header.headings(), "the list's headings")
    look("list", app.root)
    problems["list headings"] = cut_headings(window.grid.header)
    app.root.minsize(400, 300)
    app.root.geometry("800x560")
    look("list 800x560", app.root)
    problems["list headings 800x560"] = cut_headings(window.grid.header)
    layout_choice.set_layout(window, "grid")
    look("main 800x560", app.root)
    window.importer.frame.pack(side="right")          # an import's progress and Cancel
    look("import progress at 800x560", app.root)
    window.importer.frame.pack_forget()
    app.root.geometry("1400x860")
    window.open_settings("mcp")
    settings = window.settings_window
    assert settings is not None
    keys_panel = settings.mcp.creds if settings.mcp else None
    if keys_panel is not None:
        keys_panel.reload(select="Cursor")
        app.pump(lambda: keys_panel.selected() == "Cursor", "the credential chosen")
    for page in ("mcp", "general", "plugins"):
        settings.show_page(page)
        look(f"settings {page}", settings)
    settings.destroy()
    smart = next(i for i in window.sidebar.tree.get_children("section:smart")
                 if i.startswith("collection:"))
    window.sidebar_menu.smart_collection(window.sidebar.scope(smart))
    look("smart collection editor", window.sidebar_menu.dialog)  # type: ignore[arg-type]
    window.sidebar_menu.dialog.cancel()  # type: ignore[union-attr]
    window.sidebar_menu.new_folder(None)
    look("new folder", window.sidebar_menu.dialog)  # type: ignore[arg-type]
    window.sidebar_menu.dialog.cancel()  # type: ignore[union-attr]
    window.show_shortcuts()
    look("keyboard shortcuts", window.dialog)
    window.dialog.cancel()
    window.show_about()
    look("about", window.dialog)
    window.dialog.cancel()
    window.asset_menu.ask_tag(keys[:2])
    look("tag assets", window.asset_menu.dialog)  # type: ignore[arg-type]
    window.asset_menu.dialog.cancel()  # type: ignore[union-attr]
    app.gateway_call("asset.tag", {"libraryId": library_id, "assetIds": keys[:1],
                                   "tags": ["sky"]})
    app.pump(lambda: window.sidebar.tree.exists("tag:sky"), "the tag in the sidebar")
    window.sidebar_menu.delete_tag(window.sidebar.scope("tag:sky"))  # type: ignore[arg-type]
    look("delete tag", window.sidebar_menu.dialog)  # type: ignore[arg-type]
    window.sidebar_menu.dialog.cancel()  # type: ignore[union-attr]
    window.finding.open_duplicates()
    duplicates = window.finding.duplicates
    app.pump(lambda: duplicates is not None and not duplicates.review.state.loading,
             "the duplicates review")
    look("duplicates", duplicates)  # type: ignore[arg-type]
    duplicates.close()  # type: ignore[union-attr]
    window.actions.delete_permanently([keys[1]])
    app.pump(lambda: window.actions.dialog is not None, "the confirmation")
    look("delete confirmation", window.actions.dialog)  # type: ignore[arg-type]
    window.actions.dialog.cancel()  # type: ignore[union-attr]
    moving = ask_move_to_studio(window)
    look("move to a studio server", moving)  # type: ignore[arg-type]
    moving.cancel()  # type: ignore[union-attr]
    assert not any(problems.values()), {k: v for k, v in problems.items() if v}
