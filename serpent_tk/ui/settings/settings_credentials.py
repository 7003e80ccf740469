"""Settings → MCP, "Credentials": one token per AI client with its mode and toolset — create,
switch mode (Full Access only after the red confirmation) or toolset (essentials: the
everyday tools; everything), reveal on request, revoke.

Tk thread only; the credential file is read and written in the background. A token is
shown only after an explicit "Reveal token" and hidden again when another row is chosen.
"""

from __future__ import annotations

import tkinter as tk
from collections.abc import Callable
from tkinter import ttk
from typing import Any

from serpent_tk.credentials import CredentialError, CredentialStore
from serpent_tk.ui.shell import humanize
from serpent_tk.ui.shell.commands import Commands
from serpent_tk.ui.shell.dialogs import AskTextDialog, ConfirmDialog, Dialog, full_access_dialog
from serpent_tk.ui.shell.theme import Theme

MODE_LABELS = {"read-only": "Read only", "auto": "Auto", "full-access": "Full Access"}
TOOLSET_LABELS = {"essentials": "Essentials", "everything": "Everything"}
TOOLSET_HELP = ("Essentials: the everyday tools (find, look, import, tag, rate, move, trash, "
                "undo, folders, collections), fewest for the AI client to read. Everything: "
                "every tool, also library management, linked folders, history and tasks.")


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
        self.tree.heading("#0", text="Name", anchor="w")
        self.tree.heading("mode", text="Mode", anchor="w")
        self.tree.heading("toolset", text="Tools", anchor="w")
        self.tree.heading("created", text="Created", anchor="w")
        self.tree.heading("used", text="Last used", anchor="w")
        self.tree.column("#0", width=px(150), stretch=True)
        self.tree.column("mode", width=px(90), stretch=False)
        self.tree.column("toolset", width=px(90), stretch=False)
        self.tree.column("created", width=px(110), stretch=False)
        self.tree.column("used", width=px(110), stretch=False)
        self.tree.pack(fill="x")
        self.tree.bind("<<TreeviewSelect>>", lambda e: self._credential_selected())
        self.no_credentials = ttk.Label(card, style="Caption.TLabel",
                                        text="No credentials yet: copying a config creates "
                                             "one for that client.")
        buttons = ttk.Frame(card)
        buttons.pack(fill="x", pady=(px(8), 0))
        ttk.Button(buttons, text="New…", command=self.new_credential).pack(side="left")
        self.mode_var = tk.StringVar()
        self.mode_button = ttk.Menubutton(buttons, text="Mode", width=7)
        menu = tk.Menu(self.mode_button, tearoff=False)
        for mode, label in MODE_LABELS.items():
            menu.add_radiobutton(label=label, value=mode, variable=self.mode_var,
                                 command=lambda m=mode: self.set_mode(self.selected(), m))
        self.mode_button["menu"] = menu
        self.mode_button.pack(side="left", padx=(px(6), 0))
        self.toolset_var = tk.StringVar()
        self.toolset_button = ttk.Menubutton(buttons, text="Tools", width=9)
        toolsets = tk.Menu(self.toolset_button, tearoff=False)
        for toolset, label in TOOLSET_LABELS.items():
            toolsets.add_radiobutton(label=label, value=toolset, variable=self.toolset_var,
                                     command=lambda t=toolset: self.set_toolset(self.selected(),
                                                                                t))
        self.toolset_button["menu"] = toolsets
        self.toolset_button.pack(side="left", padx=(px(6), 0))
        self.reveal_button = ttk.Button(buttons, text="Reveal token", command=self.reveal)
        self.reveal_button.pack(side="left", padx=(px(6), 0))
        self.revoke_button = ttk.Button(buttons, text="Revoke…", command=self.ask_revoke)
        self.revoke_button.pack(side="left", padx=(px(6), 0))
        self.token_row = ttk.Frame(card)
        self.token_var = tk.StringVar()
        self.token_entry = ttk.Entry(self.token_row, textvariable=self.token_var,
                                     state="readonly", font=("TkFixedFont", 9))
        self.token_entry.pack(side="left", fill="x", expand=True)
        ttk.Button(self.token_row, text="Copy", command=self._copy_token).pack(
            side="left", padx=(px(6), 0))
        ttk.Button(self.token_row, text="Hide", command=self.hide_token).pack(
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
            self.credential_message.configure(text=f"Credentials could not be read: {error}")
            return
        if not self.winfo_exists():
            return
        current = select or self.selected()
        self.tree.delete(*self.tree.get_children())
        for credential in items:
            self.tree.insert("", "end", iid=credential.name, text=credential.name, values=(
                MODE_LABELS.get(credential.mode, credential.mode),
                TOOLSET_LABELS.get(credential.toolset, credential.toolset),
                humanize.ago(credential.created_at),
                humanize.ago(credential.last_used_at) if credential.last_used_at else "never"))
        names = [c.name for c in items]
        self.names = names
        self.on_names(names)
        if current in names:
            self.tree.selection_set(current)
        if names:
            self.no_credentials.pack_forget()
        else:
            self.no_credentials.pack(anchor="w", before=self.tree)
        self._credential_selected()

    def selected(self) -> str | None:
        selection = self.tree.selection()
        return selection[0] if selection else None

    def _credential_selected(self) -> None:
        name = self.selected()
        state = ["!disabled"] if name else ["disabled"]
        for button in (self.mode_button, self.toolset_button, self.reveal_button,
                       self.revoke_button):
            button.state(state)
        if name and self.tree.exists(name):
            mode_label = self.tree.set(name, "mode")
            mode = next((m for m, label in MODE_LABELS.items() if label == mode_label), "")
            self.mode_var.set(mode)
            self.mode_button.configure(text=f"Mode: {mode_label}")
            toolset_label = self.tree.set(name, "toolset")
            self.toolset_var.set(next((t for t, label in TOOLSET_LABELS.items()
                                       if label == toolset_label), ""))
            self.toolset_button.configure(text=f"Tools: {toolset_label}")
        else:
            self.mode_button.configure(text="Mode")
            self.toolset_button.configure(text="Tools")
        if self._revealed != name:
            self.hide_token()

    def new_credential(self) -> None:
        names = {n.casefold() for n in self.tree.get_children()}
        mode = tk.StringVar(value="auto")
        toolset = tk.StringVar(value="essentials")

        def modes(frame: ttk.Frame) -> None:
            ttk.Label(frame, text="Mode").pack(anchor="w")
            for value in ("read-only", "auto"):
                ttk.Radiobutton(frame, text=MODE_LABELS[value], value=value,
                                variable=mode).pack(anchor="w")
            ttk.Label(frame, text="Full Access can be turned on afterwards.",
                      style="Caption.TLabel").pack(anchor="w")
            ttk.Label(frame, text="Tools").pack(anchor="w", pady=(self.theme.px(6), 0))
            for value, label in TOOLSET_LABELS.items():
                ttk.Radiobutton(frame, text=label, value=value,
                                variable=toolset).pack(anchor="w")
            ttk.Label(frame, text=TOOLSET_HELP, style="Caption.TLabel",
                      wraplength=self.theme.px(360)).pack(anchor="w")

        def validate(text: str) -> str | None:
            if not text:
                return "Please type a name, e.g. the client's name."
            if text.casefold() in names:
                return f"There is already a credential called “{text}”."
            return None

        def create(name: str) -> None:
            def done(_result: object, error: BaseException | None) -> None:
                if error is not None:
                    self.credential_message.configure(text=str(error))
                    return
                self.credential_message.configure(
                    text=f"Created “{name}”. Copy a config to connect a client with it.")
                self.reload(select=name)

            chosen = mode.get()      # read on the Tk thread: a Tk variable never leaves it
            tools = toolset.get()
            self.commands.background(lambda: self.credentials.create(name, chosen, tools), done)

        self.dialog = AskTextDialog(self, self.theme, title="New credential",
                                    prompt="Name (usually the AI client's name):",
                                    initial=self.default_name(),
                                    confirm_label="Create", on_confirm=create,
                                    validate=validate, extra=modes)

    def set_mode(self, name: str | None, mode: str) -> None:
        if not name:
            return
        current = self.tree.set(name, "mode") if self.tree.exists(name) else ""
        if MODE_LABELS.get(mode) == current:
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
                text=f"“{name}” is now {MODE_LABELS[mode]}. It applies from its next request.")
            self.reload(select=name)

        self.commands.background(lambda: self.credentials.set_mode(name, mode), done)

    def set_toolset(self, name: str | None, toolset: str) -> None:
        """Which tools the credential's client sees; a connected client is told at once."""
        if not name or (self.tree.exists(name) and
                        self.tree.set(name, "toolset") == TOOLSET_LABELS.get(toolset)):
            return

        def done(_result: object, error: BaseException | None) -> None:
            if error is not None:
                self.credential_message.configure(text=str(error))
                return
            self.credential_message.configure(
                text=f"“{name}” now sees {TOOLSET_LABELS[toolset].lower()} tools; a connected "
                     "client is told at once.")
            self.reload(select=name)

        self.commands.background(lambda: self.credentials.set_toolset(name, toolset), done)

    def ask_revoke(self) -> None:
        name = self.selected()
        if not name:
            return
        self.dialog = ConfirmDialog(
            self, self.theme, title="Revoke credential", heading=f"Revoke “{name}”?",
            text="The client using it is cut off at its next request, and its pasted config "
                 "stops working. You can make a new credential at any time.",
            confirm_label="Revoke", on_confirm=lambda: self.revoke(name))

    def revoke(self, name: str) -> None:
        def done(_result: object, error: BaseException | None) -> None:
            if isinstance(error, CredentialError) or error is not None:
                self.credential_message.configure(text=str(error))
                return
            self.credential_message.configure(text=f"Revoked “{name}”.")
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
            self.credential_message.configure(text="Token copied to the clipboard.")
