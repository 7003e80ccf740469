"""Toasts: stacked, replaced by key, gone by themselves, never taking the focus."""

from __future__ import annotations

import tkinter as tk

import pytest

from serpent_tk.ui.activity import toasts
from serpent_tk.ui.activity.toasts import ToastStack
from serpent_tk.ui.shell.theme import Theme
from tests.ui.conftest import _ROOTS
from tests.waiting import wait_until

pytestmark = pytest.mark.gui


def test_toasts_stack_replace_by_key_and_go_away(display: str,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(toasts.SHOW_MS, "info", 300)
    root = tk.Tk()
    try:
        root.geometry("800x600+0+0")
        entry = tk.Entry(root)
        entry.pack()
        root.update()
        entry.focus_force()
        root.update()
        stack = ToastStack(root, Theme(root, "dark"))
        stack.show("Claude via MCP tagged 1 asset.", key="agent:Claude")
        stack.show("Claude via MCP tagged 2 assets — and 1 more change.", key="agent:Claude")
        stack.show("Could not rename: it was changed meanwhile.", "error")
        root.update()
        assert stack.texts() == ["Claude via MCP tagged 2 assets — and 1 more change.",
                                 "Could not rename: it was changed meanwhile."]
        frames = [t.frame for t in stack._toasts]
        assert frames[0].winfo_y() < frames[1].winfo_y()     # newest at the bottom
        root.update()
        assert frames[0].winfo_y() + frames[0].winfo_height() < frames[1].winfo_y(), \
            "toasts overlap"
        assert root.focus_get() is entry
        for index in range(8):
            stack.show(f"message {index}", "warning")
        assert len(stack.texts()) == toasts.MAX_VISIBLE
        stack.clear()
        stack.show("Done sorting.", title="Cursor via MCP")
        assert stack.texts() == ["Cursor via MCP: Done sorting."]
        wait_until(lambda: not stack.texts(), "the toast to close by itself", 5,
                   interval=0.01, tick=root.update)
        assert stack.texts() == []
    finally:
        root.destroy()
        _ROOTS.append(root)
