"""The duplicates review window (Library → Find duplicates…): every group of near-identical
images side by side, the one to keep in each (the suggested one until another is picked),
and "Trash the others": every other member of the included groups in ONE `asset.trash`, so
Edit → Undo (or the toast's Undo) brings them all back in one step. When images are not
analysed yet it says so and offers to analyse them (`analysis.run`), then looks again.

Tk thread only. One window at most; asking again brings it to the front. It looks again
when the library changes (an undo, an AI client trashing a copy), a moment after the change.
"""

from __future__ import annotations

import tkinter as tk
from collections.abc import Callable
from tkinter import ttk
from typing import Any

from serpent_tk import APP_NAME
from serpent_tk.automation.events import LibraryChanged
from serpent_tk.ui.duplicates.group_card import GroupCard
from serpent_tk.ui.duplicates.review import TRASH_BATCH, DuplicateReview
from serpent_tk.ui.language import humanize
from serpent_tk.ui.language.gateway_words import library_name
from serpent_tk.ui.language.translate import _, ngettext
from serpent_tk.ui.menus.action_table import MOD
from serpent_tk.ui.shell.bus import UiBus
from serpent_tk.ui.shell.commands import Commands
from serpent_tk.ui.shell.scrolling import ScrollableFrame
from serpent_tk.ui.shell.theme import Theme

RELOAD_MS = 400          # changes gathered this long before looking again
UNSEEN_KINDS = frozenset({"task"})   # analysis results may make new groups: look again


class DuplicatesWindow(tk.Toplevel):
    def __init__(self, parent: tk.Misc, theme: Theme, commands: Commands, bus: UiBus,
                 library: dict[str, Any],
                 picture: Callable[[str, int, Callable[[Any], None]], None],
                 trash: Callable[[list[str], Callable[[], None]], None],
                 undo: Callable[[], None]) -> None:
        super().__init__(parent)
        self.theme = theme
        self.library_id = str(library["libraryId"])
        self.picture = picture
        self.trash_ids = trash
        px = theme.px
        self.title(_("Duplicates in {library} — {app}").format(
            library=library_name(str(library.get("name") or "")) or _("the library"),
            app=APP_NAME))
        self.configure(background=theme.palette.background)
        self.transient(parent.winfo_toplevel())
        self.geometry(f"{px(920)}x{px(640)}")
        self.minsize(px(560), px(360))
        self.review = DuplicateReview(commands, self.library_id, self._render)
        self.cards: list[GroupCard] = []
        self._shown: list[Any] | None = None
        self._reload_timer: str | None = None
        self._waiting_trash = False

        head = ttk.Frame(self, padding=(px(16), px(14), px(16), px(6)))
        head.pack(side="top", fill="x")
        ttk.Label(head, text=_("Duplicates"), style="Title.TLabel").pack(anchor="w")
        status_row = ttk.Frame(head)
        status_row.pack(fill="x", pady=(px(4), 0))
        self.status = ttk.Label(status_row, anchor="w", justify="left")
        self.status.pack(side="left", fill="x", expand=True)
        self.bar = ttk.Progressbar(status_row, length=px(140), mode="indeterminate")
        self.analysis = ttk.Frame(head)
        self.analysis_text = ttk.Label(self.analysis, style="Warning.TLabel", anchor="w",
                                       justify="left")
        self.analysis_text.pack(side="left", fill="x", expand=True)
        self.analyse_button = ttk.Button(self.analysis, text=_("Analyse them now"),
                                         command=self.analyse)
        self.analyse_button.pack(side="right")
        self.error = ttk.Label(head, style="Danger.TLabel", anchor="w", justify="left")

        foot = ttk.Frame(self, padding=(px(16), px(8), px(16), px(12)))
        foot.pack(side="bottom", fill="x")
        ttk.Separator(self).pack(side="bottom", fill="x")
        self.trash_button = ttk.Button(foot, text=_("Trash the others"), style="Accent.TButton",
                                       command=self.trash_others)
        self.trash_button.pack(side="right")
        ttk.Button(foot, text=_("Close"), command=self.close).pack(side="right",
                                                                   padx=(0, px(8)))
        self.all_button = ttk.Button(foot, text=_("Include all"),
                                     command=lambda: self.review.include_all(True))
        self.all_button.pack(side="left")
        self.none_button = ttk.Button(foot, text=_("Include none"),
                                      command=lambda: self.review.include_all(False))
        self.none_button.pack(side="left", padx=(px(6), 0))
        ttk.Button(foot, text=_("Look again"), command=self.review.load).pack(
            side="left", padx=(px(6), 0))

        self.body = ScrollableFrame(self, theme)
        self.body.pack(side="top", fill="both", expand=True)
        self.empty = ttk.Label(self.body.inner, style="Muted.TLabel", justify="left",
                               padding=(px(16), px(16)))

        self.protocol("WM_DELETE_WINDOW", self.close)
        self.bind("<Escape>", lambda e: self.close())
        for key in (f"<{MOD}-z>",):
            self.bind(key, lambda e: _then_break(undo))
        self._unsubscribe = bus.subscribe(LibraryChanged, self._library_changed)
        self.review.load()

    # showing -----------------------------------------------------------------------------
    def _render(self) -> None:
        if not self.winfo_exists():
            return
        state = self.review.state
        busy = state.loading or state.analysing
        if busy and not self.bar.winfo_manager():
            self.bar.pack(side="right")
        elif not busy:
            self.bar.stop()
            self.bar.pack_forget()
        if state.analysing and state.analysis_total:
            self.bar.stop()
            self.bar.configure(mode="determinate", maximum=state.analysis_total,
                               value=min(state.analysis_done, state.analysis_total))
        elif busy:
            self.bar.configure(mode="indeterminate")
            self.bar.start(60)
        self.status.configure(text=self.status_text())
        if state.not_analysed and not state.loading:
            self.analysis_text.configure(text=ngettext(
                "{n} asset is not analysed yet, so it was not compared.",
                "{n} assets are not analysed yet, so they were not compared.",
                state.not_analysed).format(n=humanize.number(state.not_analysed)))
            self.analyse_button.state(["disabled"] if state.analysing else ["!disabled"])
            if not self.analysis.winfo_manager():
                self.analysis.pack(fill="x", pady=(self.theme.px(6), 0))
        else:
            self.analysis.pack_forget()
        if state.error:
            self.error.configure(text=state.error)
            self.error.pack(fill="x", pady=(self.theme.px(6), 0))
        else:
            self.error.pack_forget()
        if not state.loading and self._shown is not state.groups:
            self._cards()
        for card in self.cards:
            card.show_choice()
        count = len(self.review.to_trash())
        included = sum(1 for g in state.groups if g.included)
        self.trash_button.configure(text=_("Trash the others ({n})").format(
            n=humanize.number(count)) if count else _("Trash the others"))
        self.trash_button.state(["!disabled"] if count and not busy and
                                not self._waiting_trash else ["disabled"])
        for button in (self.all_button, self.none_button):
            button.state(["!disabled"] if state.groups else ["disabled"])
        self._included = included

    def status_text(self) -> str:
        state = self.review.state
        if state.analysing:
            if state.analysis_total:
                return _("Analysing {done} / {total}… the images are compared when it is "
                         "done.").format(done=humanize.number(state.analysis_done),
                                         total=humanize.number(state.analysis_total))
            return _("Analysing… the images are compared when it is done.")
        if state.loading:
            if state.groups:
                return ngettext("Looking for duplicates… ({n} group so far)",
                                "Looking for duplicates… ({n} groups so far)",
                                len(state.groups)).format(n=len(state.groups))
            return _("Looking for duplicates…")
        groups = state.groups
        analysed = ngettext("{n} analysed image", "{n} analysed images",
                            state.analysed).format(n=humanize.number(state.analysed))
        if not groups:
            if not state.analysed:
                return _("No images have been analysed yet.")
            return _("No duplicates among {analysed}.").format(analysed=analysed)
        copies = sum(len(g.members) - 1 for g in groups)
        return _("{groups} of near-identical images ({copies}) among {analysed}. The "
                 "suggested one to keep is marked ★; click another picture to keep it "
                 "instead.").format(
            groups=ngettext("{n} group", "{n} groups", len(groups)).format(n=len(groups)),
            copies=ngettext("{n} copy", "{n} copies", copies).format(n=copies),
            analysed=analysed)

    def _cards(self) -> None:
        groups = self.review.state.groups
        self._shown = groups
        if [tuple(g.asset_ids) for g in groups] == [tuple(c.group.asset_ids)
                                                   for c in self.cards] and groups:
            for card, group in zip(self.cards, groups, strict=True):
                card.group = group           # the same groups looked up again: no flicker
            return
        for card in self.cards:
            card.destroy()
        self.cards = []
        self.empty.pack_forget()
        for number, group in enumerate(groups, start=1):
            card = GroupCard(self.body.inner, self.theme, number, group, self.picture,
                             self.review.keep, self.review.include)
            card.pack(fill="x")
            ttk.Separator(card).pack(fill="x", side="bottom", pady=(self.theme.px(4), 0))
            self.cards.append(card)
        if not groups:
            self.empty.configure(text=_("Nothing to review.") if self.review.state.analysed
                                 else _("Once images are analysed, their duplicates show "
                                        "here."))
            self.empty.pack(anchor="w")
        self.body.scroll_to_top()

    # acting ------------------------------------------------------------------------------
    def trash_others(self) -> None:
        """Trash every member but the kept one of the included groups: one asset.trash (one
        undo step) for up to 1,000 assets."""
        ids = self.review.to_trash()
        if not ids:
            return
        self._waiting_trash = True
        self._render()
        batches = [ids[i:i + TRASH_BATCH] for i in range(0, len(ids), TRASH_BATCH)]
        left = [len(batches)]

        def done() -> None:
            left[0] -= 1
            if left[0] == 0:
                self._waiting_trash = False
                self.review.load()

        for batch in batches:
            self.trash_ids(batch, done)

    def analyse(self) -> None:
        self.review.analyse(lambda ms, fn: self.after(ms, fn))

    def _library_changed(self, event: LibraryChanged) -> None:
        if event.library_id != self.library_id or set(event.kinds) <= UNSEEN_KINDS:
            return
        if self.review.state.analysing or self._reload_timer is not None:
            return
        self._reload_timer = self.after(RELOAD_MS, self._reload)

    def _reload(self) -> None:
        self._reload_timer = None
        if not self._waiting_trash:
            self.review.load()

    def present(self) -> None:
        self.deiconify()
        self.lift()
        self.focus_set()

    def close(self) -> None:
        self.review.stop()
        self._unsubscribe()
        if self._reload_timer is not None:
            self.after_cancel(self._reload_timer)
        self.destroy()


def _then_break(action: Callable[[], object]) -> str:
    """Run `action` from a key binding, and keep the key from reaching the main window."""
    action()
    return "break"
