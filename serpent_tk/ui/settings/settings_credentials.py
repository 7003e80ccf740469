"""Settings → MCP, "Credentials": one token per AI client with its mode and toolset — create,
switch mode (Full Access only after the red confirmation) or toolset (essentials: the
everyday tools; everything), reveal on request, revoke.

Tk thread only; the credential file is read and written in the background. A token is
shown only after an explicit "Reveal token" and hidden again when another row is chosen.
"""

from __future__ import annotations

import tkinter as tk
from collections.abc import Callable
from functools import partial
from tkinter import ttk
from typing import Any

from serpent_tk.credentials import CredentialError, CredentialStore
from serpent_tk.ui.language import humanize
from serpent_tk.ui.language.translate import N_, _
from serpent_tk.ui.shell.commands import Commands
from serpent_tk.ui.shell.dialogs import AskTextDialog, ConfirmDialog, Dialog, full_access_dialog
from serpent_tk.ui.shell.theme import Theme

MODE_LABELS = {"read-only": N_("Read only"), "auto": N_("Auto"),
               "full-access": N_("Full Access")}
TOOLSET_LABELS = {"essentials": N_("Essentials"), "everything": N_("Everything")}
TOOLSET_HELP = N_("Essentials: the everyday tools (find, look, import, tag, rate, move, trash, "
                  "undo, folders, collections), fewest for the AI client to read. Everything: "
                  "every tool, also library management, linked folders, history and tasks.")


def mode_label(mode: str) -> str:
    return _(MODE_LABELS[mode]) if mode in MODE_LABELS else mode


def toolset_label(toolset: str) -> str:
    return _(TOOLSET_LABELS[toolset]) if toolset in TOOLSET_LABELS else toolset


class CredentialsPanel(ttk.Frame):
    def __init__(self, master: tk.Misc, theme: Theme, commands: Commands,
                 credentials: CredentialStore) -> None:
        super().__init__(master)
        self.theme = theme
        self.commands = commands
        self.credentials = credentials
        self.dialog: Dialog | None = None
        self.names: list[str] = []
        self.on_names: Callable[[list[str]], None] = lambda names: None
        self.default_name: Callable[[], str] = lambda: ""
        self._revealed: str | None = None
        self._build()
        self.reload()

    def _build(self) -> None:
        px = self.theme.px
        card = self
        columns = ("mode", "toolset", "created", "used")
        self.tree = ttk.Treeview(card, columns=columns, height=4, selectmode="browse")
        self.tree.heading("#0", text=_("Name"), anchor="w")
        self.tree.heading("mode", text=_("Mode"), anchor="w")
        self.tree.heading("toolset", text=_("Tools"), anchor="w")
        self.tree.heading("created", text=_("Created"), anchor="w")
        self.tree.heading("used", text=_("Last used"), anchor="w")
        self.tree.column("#0", width=px(150), stretch=True)
        self.tree.column("mode", width=px(90), stretch=False)
        self.tree.column("toolset", width=px(90), stretch=False)
        self.tree.column("created", width=px(110), stretch=False)
        self.tree.column("used", width=px(110), stretch=False)
        self.tree.pack(fill="x")
        self.tree.bind("<<TreeviewSelect>>", lambda e: self._credential_selected())
        self.no_credentials = ttk.Label(card, style="Caption.TLabel",
                                        text=_("No credentials yet: copying a config "
                                               "creates one for that client."))
        buttons = ttk.Frame(card)
        buttons.pack(fill="x", pady=(px(8), 0))
        ttk.Button(buttons, text=_("New…"), command=self.new_credential).pack(side="left")
        self.mode_var = tk.StringVar()
        self.mode_button = ttk.Menubutton(buttons, text=_("Mode"))    # as wide as its words
        menu = tk.Menu(self.mode_button, tearoff=False)
        for mode in MODE_LABELS:
            menu.add_radiobutton(label=mode_label(mode), value=mode, variable=self.mode_var,
                                 command=partial(self._set_mode_of_selected, mode))
        self.mode_button["menu"] = menu
        self.mode_button.pack(side="left", padx=(px(6), 0))
        self.toolset_var = tk.StringVar()
        self.toolset_button = ttk.Menubutton(buttons, text=_("Tools"))
        toolsets = tk.Menu(self.toolset_button, tearoff=False)
        for toolset in TOOLSET_LABELS:
            toolsets.add_radiobutton(label=toolset_label(toolset), value=toolset,
                                     variable=self.toolset_var,
                                     command=partial(self._set_toolset_of_selected, toolset))
        self.toolset_button["menu"] = toolsets
        self.toolset_button.pack(side="left", padx=(px(6), 0))
        self.reveal_button = ttk.Button(buttons, text=_("Reveal token"), command=self.reveal)
        self.reveal_button.pack(side="left", padx=(px(6), 0))
        self.revoke_button = ttk.Button(buttons, text=_("Revoke…"), command=self.ask_revoke)
        self.revoke_button.pack(side="left", padx=(px(6), 0))
        self.token_row = ttk.Frame(card)
        self.token_var = tk.StringVar()
        self.token_entry = ttk.Entry(self.token_row, textvariable=self.token_var,
                                     state="readonly", font=("TkFixedFont", 9))
        self.token_entry.pack(side="left", fill="x", expand=True)
        ttk.Button(self.token_row, text=_("Copy"), command=self._copy_token).pack(
            side="left", padx=(px(6), 0))
        ttk.Button(self.token_row, text=_("Hide"), command=self.hide_token).pack(
            side="left", padx=(px(6), 0))
        self.credential_message = ttk.Label(card, style="Caption.TLabel", wraplength=px(520))
        self.credential_message.pack(anchor="w", pady=(px(4), 0))
        self._credential_selected()

    def reload(self, select: str | None = None) -> None:
        self.commands.background(self.credentials.list,
                                 lambda items, error: self._show_credentials(items, error,
                                                                             select))

    def _show_credentials(self, items: list[Any] | None, error: BaseException | None,
                          select: str | None) -> None:
        if error is not None or items is None:
            self.credential_message.configure(text=_("Credentials could not be read: "
                                                     "{error}").format(error=error))
            return
        if not self.winfo_exists():
            return
        current = select or self.selected()
        self.tree.delete(*self.tree.get_children())
        for credential in items:
            self.tree.insert("", "end", iid=credential.name, text=credential.name, values=(
                mode_label(credential.mode), toolset_label(credential.toolset),
                humanize.ago(credential.created_at),
                humanize.ago(credential.last_used_at) if credential.last_used_at
                else _("never")))
        names = [c.name for c in items]
        self.names = names
        self.on_names(names)
        if current is not None and current in names:
            self.tree.selection_set(current)
        if names:
            self.no_credentials.pack_forget()
        else:
            self.no_credentials.pack(anchor="w", before=self.tree)
        self._credential_selected()

    def selected(self) -> str | None:
        selection = self.tree.selection()
        return selection[0] if selection else None

    def _set_mode_of_selected(self, mode: str) -> None:
        self.set_mode(self.selected(), mode)

    def _set_toolset_of_selected(self, toolset: str) -> None:
        self.set_toolset(self.selected(), toolset)

    def _credential_selected(self) -> None:
        name = self.selected()
        state = ["!disabled"] if name else ["disabled"]
        for button in (self.mode_button, self.toolset_button, self.reveal_button,
                       self.revoke_button):
            button.state(state)
        if name and self.tree.exists(name):
            shown_mode = self.tree.set(name, "mode")
            mode = next((m for m in MODE_LABELS if mode_label(m) == shown_mode), "")
            self.mode_var.set(mode)
            self.mode_button.configure(text=_("Mode: {mode}").format(mode=shown_mode))
            shown_toolset = self.tree.set(name, "toolset")
            self.toolset_var.set(next((t for t in TOOLSET_LABELS
                                       if toolset_label(t) == shown_toolset), ""))
            self.toolset_button.configure(text=_("Tools: {toolset}").format(
                toolset=shown_toolset))
        else:
            self.mode_button.configure(text=_("Mode"))
            self.toolset_button.configure(text=_("Tools"))
        if self._revealed != name:
            self.hide_token()

    def new_credential(self) -> None:
        names = {n.casefold() for n in self.tree.get_children()}
        mode = tk.StringVar(value="auto")
        toolset = tk.StringVar(value="essentials")

        def modes(frame: ttk.Frame) -> None:
            ttk.Label(frame, text=_("Mode")).pack(anchor="w")
            for value in ("read-only", "auto"):
                ttk.Radiobutton(frame, text=mode_label(value), value=value,
                                variable=mode).pack(anchor="w")
            ttk.Label(frame, text=_("Full Access can be turned on afterwards."),
                      style="Caption.TLabel").pack(anchor="w")
            ttk.Label(frame, text=_("Tools")).pack(anchor="w", pady=(self.theme.px(6), 0))
            for value in TOOLSET_LABELS:
                ttk.Radiobutton(frame, text=toolset_label(value), value=value,
                                variable=toolset).pack(anchor="w")
            ttk.Label(frame, text=_(TOOLSET_HELP), style="Caption.TLabel",
                      wraplength=self.theme.px(360)).pack(anchor="w")

        def validate(text: str) -> str | None:
            if not text:
                return _("Please type a name, e.g. the client's name.")
            if text.casefold() in names:
                return _("There is already a credential called “{name}”.").format(name=text)
            return None

        def create(name: str) -> None:
            def done(_result: object, error: BaseException | None) -> None:
                if error is not None:
                    self.credential_message.configure(text=str(error))
                    return
                self.credential_message.configure(
                    text=_("Created “{name}”. Copy a config to connect a client with "
                           "it.").format(name=name))
                self.reload(select=name)

            chosen = mode.get()      # read on the Tk thread: a Tk variable never leaves it
            tools = toolset.get()
            self.commands.background(lambda: self.credentials.create(name, chosen, tools), done)

        self.dialog = AskTextDialog(self, self.theme, title=_("New credential"),
                                    prompt=_("Name (usually the AI client's name):"),
                                    initial=self.default_name(),
                                    confirm_label=_("Create"), on_confirm=create,
                                    validate=validate, extra=modes)

    def set_mode(self, name: str | None, mode: str) -> None:
        if not name:
            return
        current = self.tree.set(name, "mode") if self.tree.exists(name) else ""
        if mode_label(mode) == current:
            return
        if mode == "full-access":
            self._credential_selected()          # the menu shows the old mode until confirmed
            self.dialog = full_access_dialog(self, self.theme, name,
                                             lambda: self._apply_mode(name, mode))
            return
        self._apply_mode(name, mode)

    def _apply_mode(self, name: str, mode: str) -> None:
        def done(_result: object, error: BaseException | None) -> None:
            if error is not None:
                self.credential_message.configure(text=str(error))
                return
            self.credential_message.configure(
                text=_("“{name}” is now {mode}. It applies from its next request.").format(
                    name=name, mode=mode_label(mode)))
            self.reload(select=name)

        self.commands.background(lambda: self.credentials.set_mode(name, mode), done)

    def set_toolset(self, name: str | None, toolset: str) -> None:
        """Which tools the credential's client sees; a connected client is told at once."""
        if not name or (self.tree.exists(name) and
                        self.tree.set(name, "toolset") == toolset_label(toolset)):
            return

        def done(_result: object, error: BaseException | None) -> None:
            if error is not None:
                self.credential_message.configure(text=str(error))
                return
            self.credential_message.configure(
                text=(_("“{name}” now sees the essential tools; a connected client is told "
                        "at once.") if toolset == "essentials" else
                      _("“{name}” now sees every tool; a connected client is told at "
                        "once.")).format(name=name))
            self.reload(select=name)

        self.commands.background(lambda: self.credentials.set_toolset(name, toolset), done)

    def ask_revoke(self) -> None:
        name = self.selected()
        if not name:
            return
        self.dialog = ConfirmDialog(
            self, self.theme, title=_("Revoke credential"),
            heading=_("Revoke “{name}”?").format(name=name),
            text=_("The client using it is cut off at its next request, and its pasted config "
                   "stops working. You can make a new credential at any time."),
            confirm_label=_("Revoke"), on_confirm=lambda: self.revoke(name))

    def revoke(self, name: str) -> None:
        def done(_result: object, error: BaseException | None) -> None:
            if isinstance(error, CredentialError) or error is not None:
                self.credential_message.configure(text=str(error))
                return
            self.credential_message.configure(text=_("Revoked “{name}”.").format(name=name))
            self.reload()

        self.hide_token()
        self.commands.background(lambda: self.credentials.revoke(name), done)

    def reveal(self) -> None:
        """Show the selected credential's token: only on this explicit request."""
        name = self.selected()
        if not name:
            return

        def shown(token: str | None, error: BaseException | None) -> None:
            if error is not None or token is None:
                self.credential_message.configure(text=str(error))
                return
            self._revealed = name
            self.token_var.set(token)
            self.token_row.pack(fill="x", pady=(self.theme.px(6), 0),
                                before=self.credential_message)

        self.commands.background(lambda: self.credentials.token_for(name), shown)

    def hide_token(self) -> None:
        self._revealed = None
        self.token_var.set("")
        self.token_row.pack_forget()

    def _copy_token(self) -> None:
        if self.token_var.get():
            self.clipboard_clear()
            self.clipboard_append(self.token_var.get())
            self.credential_message.configure(text=_("Token copied to the clipboard."))
