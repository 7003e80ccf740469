"""What the grid area says about the view it shows: the empty-state panel (opening, an empty
library, nothing matching a search, an empty folder, collection, smart collection or Trash)
and the banner above special views (the Trash, a smart collection and its rules, the images
similar to one, a colour filter).

Tk thread only. Decides; `EmptyState` and `ScopeBanner` draw.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from serpent_tk.ui.browser.empty_state import EmptyState
from serpent_tk.ui.browser.scope_banner import ScopeBanner
from serpent_tk.ui.language.formats import number
from serpent_tk.ui.language.translate import _, ngettext
from serpent_tk.ui.sidebar.sidebar import Scope

Action = tuple[str, Callable[[], None]] | None


def describe_rules(rules: Any) -> str:
    """A smart collection's rules in words (the rule editor's modules load when a smart
    collection is first shown, not with the window)."""
    from serpent_tk.ui.collections.rule_row import describe_rules as describe

    return describe(rules)


@dataclass
class ViewActions:
    """What the panels' buttons do (each may be missing when its command is)."""

    import_here: Callable[[], None]
    edit_rules: Callable[[Scope], None] | None
    empty_trash: Callable[[], None] | None
    show_subfolders: Callable[[], None] | None = None


def empty_view(scope: Scope, actions: ViewActions, collection: dict[str, Any] | None,
               folder: dict[str, Any] | None = None) -> tuple[str, str, Action]:
    """Title, words and button for a view with nothing in it (no search typed); a folder
    whose subfolders have assets (shown without them) says so."""
    below = int((folder or {}).get("totalCount") or 0)
    if scope.kind == "folder" and below and actions.show_subfolders is not None:
        return (_("No assets of its own"), ngettext(
            "Its subfolders have {n} asset. View → Show subfolder contents shows them here.",
            "Its subfolders have {n} assets. View → Show subfolder contents shows them here.",
            below).format(n=number(below)),
                (_("Show subfolder contents"), actions.show_subfolders))
    if scope.kind == "folder":
        return (_("This folder is empty"), _("Drag assets onto it in the sidebar, or import "
                                             "files straight into it."),
                (_("Import into this folder…"), actions.import_here))
    if scope.kind == "collection":
        return (_("This collection is empty"), _(
            "Drag assets onto “{name}” in the sidebar, or right-click them and choose Add to "
            "collection.").format(name=scope.name), None)
    if scope.kind == "smart":
        rules = describe_rules((collection or {}).get("rules"))
        edit = actions.edit_rules
        return (_("Nothing fits these rules yet"),
                _("It shows assets where {rules}.").format(
                    rules=rules[:1].lower() + rules[1:]) if rules else "",
                (_("Edit rules…"), lambda: edit(scope)) if edit else None)
    if scope.kind == "unfiled":
        return (_("Every asset is in a folder"), _("Assets that are in no folder show up "
                                                   "here."), None)
    if scope.kind == "untagged":
        return (_("Every asset has tags"), _("Assets without any tag show up here — handy "
                                             "for a tagging session."), None)
    return (_("Nothing in {view} yet").format(view=scope.name), "", None)


def no_match(scope: Scope, text: str, color: str | None) -> str:
    """What a search that found nothing says: where it looked and for what."""
    everywhere = scope.kind == "all"
    if not color:
        said = _("Nothing matches “{text}”.") if everywhere \
            else _("Nothing in {view} matches “{text}”.")
    elif text:
        said = _("Nothing matches “{text}” with the colour {color}.") if everywhere \
            else _("Nothing in {view} matches “{text}” with the colour {color}.")
    else:
        said = _("Nothing has the colour {color}. A looser match or another colour may find "
                 "some.") if everywhere else _("Nothing in {view} has the colour {color}. A "
                                               "looser match or another colour may find some.")
    return said.format(view=scope.name, text=text, color=color)


class ViewState:
    def __init__(self, session: Any, browser: Any, pages: Any, empty: EmptyState,
                 banner: ScopeBanner, collections: Callable[[], dict[str, dict[str, Any]]],
                 actions: ViewActions,
                 folders: Callable[[], dict[str, dict[str, Any]]] = dict) -> None:
        self.session = session
        self.browser = browser
        self.pages = pages
        self.empty = empty
        self.banner = banner
        self.collections = collections
        self.actions = actions
        self.folders = folders

    def show(self) -> None:
        self._banner()
        if self.session.current is None:
            kind = "loading" if self.empty.kind in ("", "loading") else self.empty.kind
            self.empty.show(kind if kind != "closed" else "closed")
            return
        if not self.pages.known or self.pages.count():
            self.empty.show("")
            return
        scope, text = self.browser.scope, self.browser.text
        color = getattr(self.browser, "color", None)
        if text or color:
            self.empty.show("no-match", no_match(scope, text, color))
        elif scope.is_trash:
            self.empty.show("trash")
        elif scope.kind != "all":
            title, detail, action = empty_view(scope, self.actions,
                                               self.collections().get(scope.target or ""),
                                               self.folders().get(scope.target or ""))
            self.empty.show("view", detail, title=title, action=action)
        else:
            self.empty.show("empty")

    def _banner(self) -> None:
        scope = self.browser.scope if self.session.current is not None else None
        if scope is not None and scope.is_trash:
            empty_trash = self.actions.empty_trash
            self.banner.show(_("Trash"), _("Right-click → Restore brings assets back; "
                                           "emptying the Trash deletes them for good."),
                             (_("Empty Trash…"), empty_trash) if empty_trash and
                             self.pages.count() else None)
        elif scope is not None and scope.kind == "smart":
            rules = describe_rules((self.collections().get(scope.target or "") or {}
                                    ).get("rules"))
            edit = self.actions.edit_rules
            self.banner.show(_("Smart collection"), rules,
                             (_("Edit rules…"), lambda: edit(scope)) if edit else None)
        elif scope is not None and scope.kind == "similar":
            self.banner.show(scope.name, self._similar_words(),
                             (_("Back to {view}").format(
                                 view=self.browser._before_similar.name),
                              self.browser.leave_similar))
        else:
            self.banner.hide()

    def _similar_words(self) -> str:
        if not self.pages.known:
            return _("Looking for images that look like it…")
        others = max(0, self.pages.count() - 1)
        note = getattr(self.pages, "note", None)
        if not others:
            return note or _("Nothing else in the library looks like it.")
        return ngettext("It is first, then {n} image that looks like it.",
                        "It is first, then {n} images that look like it, closest first.",
                        others).format(n=number(others))
