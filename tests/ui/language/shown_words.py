"""What a window shows in words, read from its widgets (labels, buttons, menus, lists, canvas
text, tabs, titles), and the two checks a window in 简体中文 must pass: no English word
(names of things, keys and file types aside) and no character that no installed font can
draw (it would show as an empty box, "tofu"). Tk thread only (tests)."""

from __future__ import annotations

import re
import subprocess
import tkinter as tk
from functools import lru_cache
from tkinter import ttk

# words that stay as they are in Chinese: names (the app, protocols, AI clients), keycaps,
# units and file types
KEPT = {"Serpent", "MCP", "AI", "Claude", "Desktop", "Cursor", "VS", "Code", "Codex",
        "Windsurf", "Gemini", "CLI", "Cline", "Zed", "Ctrl", "Cmd", "Shift", "Esc", "Enter",
        "Space", "Delete", "Home", "End", "Page", "Up", "Down", "PNG", "png", "JPG", "jpg",
        "GIF", "gif", "WEBP", "KB", "MB", "GB", "ID", "URL", "PDF", "pdf", "toml", "px",
        "English",  # the language list names each language in its own words
        "PostgreSQL"}  # the studio database's product name
PATH_OR_URL = re.compile(r"\S*[/\\]\S*|\S+\.\S+:\d+")
WORD = re.compile(r"[A-Za-z]{2,}")


def _menu_texts(menu: tk.Menu, seen: set[str]) -> list[str]:
    if str(menu) in seen:
        return []
    seen.add(str(menu))
    texts: list[str] = []
    end = menu.index("end")
    for index in range(0 if end is None else int(end) + 1):
        kind = menu.type(index)
        if kind in ("separator", "tearoff"):
            continue
        texts.append(str(menu.entrycget(index, "label")))
        if kind != "cascade":
            texts.append(str(menu.entrycget(index, "accelerator")))
        else:
            sub = menu.nametowidget(menu.entrycget(index, "menu"))
            texts += _menu_texts(sub, seen)
    return texts


def texts_of(widget: tk.Misc, *, skip: tuple[tk.Misc, ...] = ()) -> list[str]:
    """Every text `widget` and its mapped children show (menus: every entry)."""
    found: list[str] = []
    seen: set[str] = set()
    stack: list[tk.Misc] = [widget]
    while stack:
        current = stack.pop()
        if current in skip:
            continue
        if isinstance(current, tk.Menu):
            found += _menu_texts(current, seen)
            continue
        if isinstance(current, tk.Wm):
            found.append(str(current.wm_title()))
            menu = str(current.cget("menu") or "") if isinstance(current, tk.Tk) else ""
            if menu:
                found += _menu_texts(current.nametowidget(menu), seen)
        elif not current.winfo_ismapped():
            continue
        found += _own_texts(current)
        stack.extend(current.winfo_children())
    return [t for t in found if t]


def _own_texts(widget: tk.Misc) -> list[str]:
    if isinstance(widget, ttk.Treeview):
        texts = [str(widget.heading(c, "text")) for c in ("#0", *widget["columns"])]
        items = list(widget.get_children(""))
        while items:
            item = items.pop()
            texts.append(str(widget.item(item, "text")))
            texts += [str(v) for v in widget.item(item, "values")]
            if widget.item(item, "open"):
                items += widget.get_children(item)
        return texts
    if isinstance(widget, ttk.Notebook):
        return [str(widget.tab(tab, "text")) for tab in widget.tabs()]
    if isinstance(widget, ttk.Combobox):
        return [widget.get()]
    if isinstance(widget, ttk.Entry | tk.Entry):
        return [widget.get()]
    if isinstance(widget, tk.Text):
        return [widget.get("1.0", "end")]
    if isinstance(widget, tk.Canvas):
        return [str(widget.itemcget(item, "text")) for item in widget.find_all()
                if widget.type(item) == "text" and widget.itemcget(item, "state") != "hidden"]
    try:
        return [str(widget.cget("text"))]
    except tk.TclError:
        return []


def english_words(texts: list[str], data: set[str] = frozenset()) -> list[str]:  # type: ignore[assignment]
    """The English words among `texts` (paths, URLs, names kept as they are, and the
    words of `data` — names the test gave its folders or files — aside)."""
    found = []
    for text in texts:
        for word in WORD.findall(PATH_OR_URL.sub(" ", text)):
            if word not in KEPT and word not in data:
                found.append(f"{word} (in {text[:60]!r})")
    return found


@lru_cache(maxsize=1)
def _drawable() -> frozenset[int]:
    """Every code point some installed font has a glyph for (fontconfig's charsets)."""
    listing = subprocess.run(["fc-list", "--format", "%{charset}\n"], capture_output=True,
                             text=True, check=True, timeout=60).stdout
    points: set[int] = set()
    for line in listing.splitlines():
        for part in line.split():
            low, _, high = part.partition("-")
            points.update(range(int(low, 16), int(high or low, 16) + 1))
    return frozenset(points)


def missing_glyphs(texts: list[str]) -> set[str]:
    """Characters of `texts` that no installed font can draw."""
    drawable = _drawable()
    return {ch for text in texts for ch in text
            if not ch.isspace() and ord(ch) > 0x7e and ord(ch) not in drawable}
