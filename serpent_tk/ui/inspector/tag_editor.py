"""Tags of the shown asset(s) as removable chips, plus a field to add one. Tk thread only.

Chips wrap like words (they live in a read-only Text widget). Enter or comma adds what was
typed; known tags are suggested under the field while typing (`tag_suggestions`). For a
multi-selection, tags only
some assets carry show as partial chips ("sky · 3 of 5", outlined) with + to give the tag
to all of them and ✕ to take it from all of them.
"""

from __future__ import annotations

import tkinter as tk
from collections.abc import Callable, Mapping, Sequence
from tkinter import ttk
from typing import Any

from serpent_tk.ui.inspector.tag_suggestions import SuggestionList, suggestions
from serpent_tk.ui.language.translate import _
from serpent_tk.ui.shell.theme import FONT_BODY, FONT_CAPTION, Theme


class Chip(tk.Frame):
    """One tag's chip in the editor; a partial one (a tag only some of the shown assets
    carry) has its + and ✕ at hand (tests press them)."""

    def __init__(self, tag: str, master: tk.Misc, **options: Any) -> None:
        super().__init__(master, **options)
        self.tag_name = tag
        self.partial = False
        self.add_button: tk.Label | None = None
        self.remove_button: tk.Label | None = None

class TagEditor(ttk.Frame):
    def __init__(self, master: tk.Misc, theme: Theme) -> None:
        super().__init__(master)
        self.theme = theme
        self.on_add: Callable[[str], None] = lambda tag: None
        self.on_remove: Callable[[str], None] = lambda tag: None
        self.known_tags: list[str] = []
        self.tags: list[str] = []
        self.partial: dict[str, int] = {}
        self._of = 0
        self._built = False
        p = theme.palette
        self.chips = tk.Text(self, height=1, wrap="word", borderwidth=0, highlightthickness=0,
                             background=p.background, cursor="arrow", padx=0, pady=0,
                             spacing1=theme.px(2), spacing3=theme.px(2), takefocus=0)
        self.chips.pack(fill="x")
        self.entry_var = tk.StringVar()
        self.entry = ttk.Entry(self, textvariable=self.entry_var)
        self.entry.pack(fill="x", pady=(theme.px(4), 0))
        self.suggestions = SuggestionList(self.entry, theme, self._pick)
        self._placeholder = _("Add a tag…")
        self._show_placeholder()
        self.entry.bind("<FocusIn>", lambda e: self._hide_placeholder())
        self.entry.bind("<FocusOut>", lambda e: self._focus_out())
        self.entry.bind("<Return>", lambda e: self._commit())
        self.entry.bind("<KP_Enter>", lambda e: self._commit())
        self.entry.bind("<Tab>", lambda e: self._take_suggestion())
        self.entry.bind("<comma>", lambda e: self._commit())
        self.entry.bind("<Down>", lambda e: self._move_suggestion(1))
        self.entry.bind("<Up>", lambda e: self._move_suggestion(-1))
        self.entry.bind("<Escape>", lambda e: self._escape())
        self.entry.bind("<KeyRelease>", self._complete)
        self.chips.bind("<Configure>", lambda e: self._fit_height())
        theme.on_change(self._restyle)
        self.chips.configure(state="disabled")

    def set_tags(self, tags: Sequence[str], force: bool = False, *,
                 partial: Mapping[str, int] | None = None, of: int = 0) -> None:
        """`tags`: carried by every shown asset; `partial`: tag -> how many of the `of`
        shown assets carry it (multi-selection only)."""
        partial = dict(partial or {})
        if list(tags) == self.tags and partial == self.partial and self._of == of \
                and self._built and not force:
            return                       # unchanged: keep the chips (no widget churn)
        self._built = True
        self.tags = list(tags)
        self.partial = partial
        self._of = of
        chips = self.chips
        chips.configure(state="normal")
        for child in chips.winfo_children():
            child.destroy()
        chips.delete("1.0", "end")
        for tag in self.tags:
            chips.window_create("end", window=self._chip(tag), padx=self.theme.px(2),
                                pady=self.theme.px(1))
        for tag, count in self.partial.items():
            chips.window_create("end", window=self._partial_chip(tag, count, of),
                                padx=self.theme.px(2), pady=self.theme.px(1))
        if not self.tags and not self.partial:
            chips.insert("end", _("No tags yet"), ("muted",))
            chips.tag_configure("muted", foreground=self.theme.palette.text_muted,
                                font=FONT_BODY)
        chips.configure(state="disabled")
        self.after_idle(self._fit_height)

    def _move_suggestion(self, delta: int) -> str:
        self.suggestions.move(delta)
        return "break"

    def _chip(self, tag: str) -> Chip:
        p, px = self.theme.palette, self.theme.px
        frame = Chip(tag, self.chips, background=p.surface_hover, padx=px(5), pady=px(1))
        label = tk.Label(frame, text=tag, background=p.surface_hover, foreground=p.text,
                         font=FONT_BODY)
        label.pack(side="left")
        close = tk.Label(frame, text="✕", background=p.surface_hover,
                         foreground=p.text_muted, font=FONT_BODY, cursor="hand2")
        close.pack(side="left", padx=(px(4), 0))
        close.bind("<Button-1>", lambda e: self.on_remove(tag))
        return frame

    def _partial_chip(self, tag: str, count: int, of: int) -> Chip:
        """A tag only some of the shown assets carry: outlined, "sky · 3 of 5"."""
        p, px = self.theme.palette, self.theme.px
        frame = Chip(tag, self.chips, background=p.background, padx=px(5), pady=0,
                         highlightthickness=1, highlightbackground=p.text_muted,
                         highlightcolor=p.text_muted)
        label = tk.Label(frame, text=tag, background=p.background, foreground=p.text,
                         font=FONT_BODY)
        label.pack(side="left")
        share = tk.Label(frame, text=_("· {count} of {total}").format(count=count, total=of),
                         background=p.background,
                         foreground=p.text_muted, font=FONT_CAPTION)
        share.pack(side="left", padx=(px(3), 0))
        add = tk.Label(frame, text="+", background=p.background, foreground=p.accent,
                       font=FONT_BODY, cursor="hand2")
        add.pack(side="left", padx=(px(5), 0))
        add.bind("<Button-1>", lambda e: self.on_add(tag))
        remove = tk.Label(frame, text="✕", background=p.background,
                          foreground=p.text_muted, font=FONT_BODY, cursor="hand2")
        remove.pack(side="left", padx=(px(3), 0))
        remove.bind("<Button-1>", lambda e: self.on_remove(tag))
        frame.partial = True
        frame.add_button = add
        frame.remove_button = remove
        return frame

    def chip_names(self) -> list[str]:
        """Tags every shown asset carries (normal chips)."""
        return [w.tag_name for w in self.chips.winfo_children()
                if isinstance(w, Chip) and not w.partial]

    def partial_chips(self) -> dict[str, Chip]:
        """Partial chips by tag (tests press their + and ✕)."""
        return {w.tag_name: w for w in self.chips.winfo_children()
                if isinstance(w, Chip) and w.partial}

    def _fit_height(self) -> None:
        """As tall as the chips need (their rows are taller than a line of text: a height in
        lines would cut the last row off); the inspector around it scrolls."""
        try:
            pixels = self.chips.count("1.0", "end", "update", "ypixels")
        except tk.TclError:
            return
        needed = pixels[0] if isinstance(pixels, tuple) else (pixels or 0)
        # a "line" of the Text's height is its font's line plus the spacing above and below
        line = max(1, self.theme.font(FONT_BODY).metrics("linespace")
                   + int(self.chips.cget("spacing1")) + int(self.chips.cget("spacing3")))
        lines = -(-int(needed) // line)
        if self.chips.cget("height") != max(1, min(400, lines)):
            self.chips.configure(height=max(1, min(400, lines)))

    def _commit(self) -> str:
        chosen = self.suggestions.highlighted
        text = chosen or self.entry_var.get().strip().strip(",").strip()
        self.suggestions.hide()
        if text and text != self._placeholder:
            self.entry_var.set("")
            if text not in self.tags:
                self.on_add(text)
        return "break"

    def _pick(self, tag: str) -> None:
        self.entry_var.set(tag)
        self._commit()
        self.entry.focus_set()

    def _take_suggestion(self) -> str | None:
        if not self.suggestions.shown:
            return None                       # Tab moves on as usual
        if self.suggestions.highlighted is None:
            self.suggestions.move(1)
        return self._commit()

    def _escape(self) -> str | None:
        if self.suggestions.shown:
            self.suggestions.hide()
            return "break"
        return None

    def _focus_out(self) -> None:
        # a click on the list arrives after the field lost the focus: close a moment later
        self.after(150, self.suggestions.hide)
        self._show_placeholder()

    def _complete(self, event: tk.Event) -> None:
        """Every key typed: show the known tags that fit what is typed so far."""
        if event.keysym in ("Return", "KP_Enter", "Escape", "Up", "Down", "Tab", "comma"):
            return
        typed = self.entry_var.get()
        if typed == self._placeholder:
            return
        self.suggestions.show(suggestions(typed, self.known_tags, self.tags))

    def _show_placeholder(self) -> None:
        if not self.entry_var.get():
            self.entry_var.set(self._placeholder)
            self.entry.configure(foreground=self.theme.palette.text_muted)

    def _hide_placeholder(self) -> None:
        if self.entry_var.get() == self._placeholder:
            self.entry_var.set("")
        self.entry.configure(foreground=self.theme.palette.text)

    def _restyle(self) -> None:
        self.chips.configure(background=self.theme.palette.background)
        self.set_tags(self.tags, force=True, partial=self.partial, of=self._of)
        if self.entry_var.get() == self._placeholder:
            self.entry.configure(foreground=self.theme.palette.text_muted)
