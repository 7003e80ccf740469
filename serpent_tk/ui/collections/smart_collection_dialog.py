"""The smart-collection editor: a name, "match all / any of these rules", rows of field ·
operator · value, and a live "12 assets match" while the person edits.

Tk thread only. The preview runs `collection.run-rules` through the gateway (debounced, off
the Tk thread; only the newest answer counts). The library checks every rule; its
INVALID_ARGUMENT names the bad part (`rules.rules.2.value`) and that row shows the error in
words. Saving is `collection.create` or `collection.update` (with the version the dialog
was opened at), so it is undoable like any other change.
"""

from __future__ import annotations

import tkinter as tk
from collections.abc import Callable
from tkinter import ttk
from typing import Any

from library.errors import ErrorCode
from serpent_tk.ui.collections.rule_row import RuleRow
from serpent_tk.ui.collections.rule_values import RuleContext
from serpent_tk.ui.language import humanize, translate
from serpent_tk.ui.language.translate import N_, _, ngettext
from serpent_tk.ui.shell.commands import Commands, Reply, describe_error
from serpent_tk.ui.shell.dialogs import Dialog
from serpent_tk.ui.shell.theme import Theme

PREVIEW_MS = 300
MAX_RULES = 50
MATCH_WORDS = {"all": N_("all"), "any": N_("any")}


def folder_paths(folders: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """`folder.list` items as (id, "Trips / Alps"), sorted by that path."""
    by_id = {f["id"]: f for f in folders}

    def path(folder: dict[str, Any]) -> str:
        names, seen = [], set()
        while folder is not None and folder["id"] not in seen:
            seen.add(folder["id"])
            names.append(str(folder["name"]))
            folder = by_id.get(folder.get("parentId"))  # type: ignore[assignment]
        return " / ".join(reversed(names))

    return sorted(((f["id"], path(f)) for f in folders), key=lambda pair: pair[1].casefold())


def where_error_goes(field: str) -> tuple[str, int | None]:
    """("rule", 2) for `rules.rules.2.value`; ("name", None); ("general", None)."""
    parts = field.split(".") if field else []
    if parts[:2] == ["rules", "rules"] and len(parts) > 2 and parts[2].isdigit():
        return "rule", int(parts[2])
    if parts[:1] == ["name"]:
        return "name", None
    return "general", None


def in_words(message: str, field: str, code: str = ErrorCode.INVALID_ARGUMENT) -> str:
    """The library's message without the field path it starts with, as a sentence (in
    another language than English, what its error code means: the message is English)."""
    if translate.current() != translate.ENGLISH:
        return _("That name is already taken.") if code == ErrorCode.ALREADY_EXISTS \
            else _("This value is not accepted; check it.")
    if field and message.startswith(field + ":"):
        message = message[len(field) + 1:].strip()
    message = message[:1].upper() + message[1:]
    return message if message.endswith((".", "!", "?")) else message + "."


def matches(total: int) -> str:
    if total == 0:
        return _("No assets match yet")
    return ngettext("{n} asset matches", "{n} assets match", total).format(
        n=humanize.number(total))


class SmartCollectionDialog(Dialog):
    def __init__(self, parent: tk.Misc, theme: Theme, commands: Commands, library_id: str,
                 *, tags: list[str], collection: dict[str, Any] | None = None,
                 on_saved: Callable[[dict[str, Any]], None] | None = None) -> None:
        super().__init__(parent, theme, _("Edit smart collection") if collection
                         else _("New smart collection"))
        self.commands = commands
        self.library_id = library_id
        self.collection = collection
        self.on_saved = on_saved or (lambda result: None)
        self.context = RuleContext(tags)
        self.rows: list[RuleRow] = []
        self.saving = False
        self._revealed = False
        self._preview_timer: str | None = None
        self._generation = 0
        px = theme.px

        body = ttk.Frame(self, padding=(px(20), px(16), px(20), px(14)))
        body.pack(fill="both", expand=True)
        heading = (_("Edit “{name}”").format(name=collection["name"]) if collection
                   else _("New smart collection"))
        ttk.Label(body, text=heading, style="Title.TLabel").pack(anchor="w")
        ttk.Label(body, text=_("Assets that fit the rules show up by themselves, now and "
                               "whenever they change."), style="Muted.TLabel",
                  wraplength=px(460), justify="left").pack(anchor="w", pady=(px(2), px(12)))

        ttk.Label(body, text=_("Name"), style="Caption.TLabel").pack(anchor="w")
        self.name_var = tk.StringVar(value=collection["name"] if collection else "")
        self.name_entry = ttk.Entry(body, textvariable=self.name_var, width=40)
        self.name_entry.pack(fill="x", pady=(px(2), 0))
        self.name_error = ttk.Label(body, style="Danger.TLabel")
        self.name_var.trace_add("write", lambda *_: self._say(self.name_error, ""))

        match_row = ttk.Frame(body)
        match_row.pack(fill="x", pady=(px(10), px(6)))
        ttk.Label(match_row, text=_("Show assets that match")).pack(side="left")
        self.match_box = ttk.Combobox(match_row, state="readonly", width=5,
                                      values=[_(words) for words in MATCH_WORDS.values()])
        self.match_box.pack(side="left", padx=px(6))
        ttk.Label(match_row, text=_("of these rules:")).pack(side="left")
        self.match_box.bind("<<ComboboxSelected>>", lambda e: self.changed())

        self.rules_frame = ttk.Frame(body)
        self.rules_frame.pack(fill="x")
        self.add_button = ttk.Button(body, text=_("+ Add a rule"), command=self.add_rule)
        self.add_button.pack(anchor="w", pady=(px(6), 0))
        self.error = ttk.Label(body, style="Danger.TLabel", wraplength=px(460),
                               justify="left")

        ttk.Separator(body).pack(fill="x", pady=(px(8), px(10)))
        footer = ttk.Frame(body)
        footer.pack(fill="x")
        self.preview = ttk.Label(footer, style="Strong.TLabel")
        self.preview.pack(side="left")
        ttk.Button(footer, text=_("Cancel"), command=self.cancel).pack(side="right")
        self.save_button = ttk.Button(footer, text=_("Save") if collection else _("Create"),
                                      command=self.confirm, style="Accent.TButton")
        self.save_button.pack(side="right", padx=(0, px(8)))

        rules = (collection or {}).get("rules") or {}
        self.match_box.set(_(MATCH_WORDS.get(str(rules.get("match", "all")), "all")))
        given = rules.get("rules") or [None]
        # any/all groups inside the rules (made over MCP) are kept as they are, not shown
        self.kept_groups = [r for r in given if isinstance(r, dict) and "rules" in r]
        for rule in [r for r in given if r not in self.kept_groups] or [None]:
            self.add_rule(rule, quiet=True)
        if self.kept_groups:
            ttk.Label(body, style="Muted.TLabel", text=ngettext(
                "Also {n} group of rules made elsewhere; it is kept as it is.",
                "Also {n} groups of rules made elsewhere; they are kept as they are.",
                len(self.kept_groups)).format(n=len(self.kept_groups))).pack(fill="x")
        self.bind("<Return>", lambda e: self.confirm())
        self._load_folders()
        self.changed()
        self.present(focus=self.name_entry)

    # rows --------------------------------------------------------------------------------
    def add_rule(self, rule: dict[str, Any] | None = None, quiet: bool = False) -> RuleRow:
        row = RuleRow(self.rules_frame, self.theme, self.context, rule)
        row.pack(fill="x", pady=(0, self.theme.px(6)))
        row.on_change = self.changed
        row.on_remove = self.remove_rule
        self.rows.append(row)
        self._rows_changed()
        if not quiet:
            self.changed()
        return row

    def remove_rule(self, row: RuleRow) -> None:
        if row in self.rows:
            self.rows.remove(row)
            row.destroy()
            self._rows_changed()
            self.changed()

    def _rows_changed(self) -> None:
        for row in self.rows:
            row.remove_button.state(["!disabled"] if len(self.rows) > 1 else ["disabled"])
        self.add_button.state(["!disabled"] if len(self.rows) < MAX_RULES else ["disabled"])

    def ruleset(self) -> dict[str, Any]:
        shown = self.match_box.get()
        match = next((key for key, words in MATCH_WORDS.items() if _(words) == shown), "all")
        return {"match": match,
                "rules": [r.rule() for r in self.rows] + self.kept_groups}

    # the preview ---------------------------------------------------------------------------
    def changed(self) -> None:
        """Something was edited: count the matches again in a moment."""
        if self._preview_timer is not None:
            self.after_cancel(self._preview_timer)
        self._preview_timer = self.after(PREVIEW_MS, self._run_preview)
        if not self.preview.cget("text"):
            self.preview.configure(text=_("Counting…"))

    def _local_problems(self) -> bool:
        """True if a rule is plainly incomplete. Says so on rows the person has edited
        (a rule just added is not red yet), and on all of them once saving was tried."""
        found = False
        for row in self.rows:
            problem = row.problem()
            row.show_error(problem if self._revealed or row.touched else None)
            found = found or problem is not None
        return found

    def _run_preview(self) -> None:
        self._preview_timer = None
        self._generation += 1
        generation = self._generation
        self._say(self.error, "")
        if self._local_problems():
            self.preview.configure(text=_("Finish the rules to see what matches."))
            return

        def answered(reply: Reply) -> None:
            if generation != self._generation or self.closed:
                return
            if reply.ok:
                self.preview.configure(text=matches(int(reply.result.get("total", 0))))
            else:
                self.preview.configure(text=_("Fix the rule marked in red to see what "
                                              "matches.")
                                       if reply.code == ErrorCode.INVALID_ARGUMENT else "")
                self.show_reply_error(reply)

        self.commands.call("collection.run-rules", {"libraryId": self.library_id,
                                                    "rules": self.ruleset(), "limit": 1},
                           answered)

    def show_reply_error(self, reply: Reply) -> None:
        """Put the library's complaint where it belongs: a rule, the name, or underneath."""
        field = reply.error.get("field", "") if reply.error is not None else ""
        place, index = where_error_goes(field)
        if reply.code in (ErrorCode.INVALID_ARGUMENT, ErrorCode.NOT_FOUND,
                          ErrorCode.ALREADY_EXISTS) and (
                place == "name" or (place == "rule" and index is not None
                                    and index < len(self.rows))):
            text = in_words(reply.message, field, reply.code or ErrorCode.INVALID_ARGUMENT)
            if reply.code == ErrorCode.NOT_FOUND and place == "rule":
                text = _("That folder is gone; choose another.")
            if place == "name":
                self._say(self.name_error, text)
            else:
                self.rows[index].show_error(text)  # type: ignore[index]
            return
        if reply.code == ErrorCode.VERSION_CONFLICT:
            self._say(self.error, _("This collection was changed meanwhile (perhaps by an AI "
                                    "client). Cancel and open it again to see its newest "
                                    "rules."))
            return
        self._say(self.error, describe_error(reply))

    def _say(self, label: ttk.Label, text: str) -> None:
        """Show an error label with `text`, or hide it (no empty gap) when there is none."""
        label.configure(text=text)
        if not text:
            label.pack_forget()
        elif not label.winfo_manager():
            after = self.name_entry if label is self.name_error else self.add_button
            label.pack(anchor="w", after=after, pady=(self.theme.px(4), 0))

    # saving --------------------------------------------------------------------------------
    def confirm(self) -> None:
        if self.closed or self.saving:
            return
        name = self.name_var.get().strip()
        self._say(self.name_error, "" if name else _("Please give it a name."))
        self._revealed = True            # from now on every gap shows, edited or not
        if self._local_problems() or not name:
            return
        args: dict[str, Any] = {"libraryId": self.library_id, "rules": self.ruleset()}
        if self.collection is None:
            command = "collection.create"
            args["name"] = name
        else:
            command = "collection.update"
            args.update(collectionId=self.collection["id"],
                        expectedVersion=self.collection["version"])
            if name != self.collection["name"]:
                args["name"] = name
        self.saving = True
        self.save_button.state(["disabled"])

        def answered(reply: Reply) -> None:
            self.saving = False
            if self.closed:
                return
            if reply.ok:
                self.result = reply.result
                self.close()
                self.on_saved(reply.result)
                return
            self.save_button.state(["!disabled"])
            self.show_reply_error(reply)

        self.commands.call(command, args, answered)

    def close(self) -> None:
        if self._preview_timer is not None:
            self.after_cancel(self._preview_timer)
            self._preview_timer = None
        super().close()

    # folders -------------------------------------------------------------------------------
    def _load_folders(self) -> None:
        def answered(reply: Reply) -> None:
            if not self.closed:
                self.context.set_folders(folder_paths(list(reply.result.get("items", [])))
                                         if reply.ok else [])

        self.commands.call("folder.list", {"libraryId": self.library_id}, answered)
