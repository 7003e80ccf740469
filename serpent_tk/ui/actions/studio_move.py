"""Library menu → "Move to a studio server…": the dialog that turns the library shown into a
studio library (`library.move-to-studio`, docs/studio.md): its PostgreSQL address, the
folder it stays in, what will happen (the second press confirms), progress, and clear errors.

Tk thread only. The library's records go into the database while the dialog shows progress
(Cancel stops the move before the switch; nothing changes then); once moved, the library
opens again as a studio library by itself and the dialog says so.
"""

from __future__ import annotations

import secrets
import tkinter as tk
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from tkinter import ttk
from typing import Any

from library.errors import ErrorCode
from serpent_tk.automation.envelope import Envelope
from serpent_tk.ui.language import humanize
from serpent_tk.ui.language.translate import N_, _, ngettext
from serpent_tk.ui.shell.commands import Commands, Reply, describe_error
from serpent_tk.ui.shell.dialogs import Dialog
from serpent_tk.ui.shell.theme import FONT_STRONG, Theme

COMMAND = "library.move-to-studio"
SET_ASIDE = ".before-studio"
# what a refusal means, in the window's language (by the error's reason, then its code)
_REASONS = {
    "password-in-uri": N_("Leave the password out of the address: put it in the PostgreSQL "
                          "password file (~/.pgpass, or the file PGPASSFILE names)."),
    "not-empty": N_("That database is not empty: give an empty database made for this "
                    "library."),
    "linked-folders": N_("This library has linked folders (folders on this computer's "
                         "disk), which a studio library cannot hold yet: unlink them first."),
    "already-studio": N_("This library is a studio library already."),
}
_CODES: dict[str, str] = {
    ErrorCode.DATABASE_UNAVAILABLE: N_("The database server cannot be reached (is the address "
                                       "right, and the server running?). Nothing was "
                                       "changed."),
    ErrorCode.ALREADY_EXISTS: N_("That database holds a Serpent library already: open that "
                                 "library's folder instead."),
    ErrorCode.INVALID_ARGUMENT: N_("Type a PostgreSQL address such as "
                                   "postgresql://serpent@studio-server/refs."),
    ErrorCode.CANCELLED: N_("Cancelled: the library is still on this computer, as it was."),
}


class MoveToStudioDialog(Dialog):
    """`step`: ask → confirm (the plan is shown; the button moves) → moving → done."""

    def __init__(self, parent: tk.Misc, theme: Theme, commands: Commands,
                 library: dict[str, Any],
                 subscribe: Callable[[type, Callable[[Any], None]], Callable[[], None]]
                 ) -> None:
        super().__init__(parent, theme, _("Move to a studio server"))
        from library.protocol import TaskProgress

        self.commands = commands
        self.library_id = str(library["libraryId"])
        self.folder = Path(str(library.get("path", "")))
        self.name = str(library.get("name", "")) or self.folder.stem
        self.step = "ask"
        self.challenge: str | None = None
        self.ticket = f"move-{secrets.token_hex(4)}"
        self.future: Future[Envelope] | None = None
        self._off = subscribe(TaskProgress, self.progress)
        px, wrap = theme.px, theme.px(420)
        body = ttk.Frame(self, padding=(px(20), px(16), px(20), px(12)))
        body.pack(fill="both", expand=True)
        ttk.Label(body, font=FONT_STRONG, wraplength=wrap, justify="left", text=_(
            "Move “{name}” to a studio server").format(name=self.name)
        ).pack(anchor="w")
        ttk.Label(body, wraplength=wrap, justify="left", text=_(
            "Its records (assets, tags, folders, collections, history) go into a PostgreSQL "
            "database your team shares, with the same ids; everyone who opens its folder "
            "then works on it at the same time.")).pack(anchor="w", pady=(px(6), 0))
        ttk.Label(body, text=_("Studio database:")).pack(anchor="w", pady=(px(10), 0))
        self.database = tk.StringVar(value="")
        self.entry = ttk.Entry(body, textvariable=self.database, width=48)
        self.entry.pack(fill="x", pady=(px(4), px(2)))
        ttk.Label(body, style="Muted.TLabel", wraplength=wrap, justify="left", text=_(
            "An empty database, such as postgresql://serpent@studio-server/refs (the password "
            "goes in the PostgreSQL password file, never here).")).pack(anchor="w")
        ttk.Label(body, text=_("Folder:")).pack(anchor="w", pady=(px(10), 0))
        self.folder_label = ttk.Label(body, text=str(self.folder), wraplength=wrap,
                                      justify="left")
        self.folder_label.pack(anchor="w")
        ttk.Label(body, style="Muted.TLabel", wraplength=wrap, justify="left", text=_(
            "The library stays in this folder: it must be on the shared drive every computer "
            "reaches (move the folder there first if it is not).")).pack(anchor="w")
        self.bar = ttk.Progressbar(body, mode="indeterminate", length=px(420))
        self.message = ttk.Label(body, wraplength=wrap, justify="left")
        self.message.pack(anchor="w", pady=(px(10), 0))
        self.error = ttk.Label(body, style="Danger.TLabel", wraplength=wrap, justify="left")
        self.error.pack(anchor="w")
        buttons = ttk.Frame(body)
        buttons.pack(fill="x", pady=(px(12), 0))
        self.cancel_button = ttk.Button(buttons, text=_("Cancel"), command=self.cancel)
        self.cancel_button.pack(side="right")
        self.confirm_button = ttk.Button(buttons, text=_("Move…"), command=self.confirm,
                                         style="Accent.TButton")
        self.confirm_button.pack(side="right", padx=(0, px(8)))
        self.bind("<Return>", lambda e: self.confirm())
        self.present(focus=self.entry)

    # -- the steps ---------------------------------------------------------------------
    def confirm(self) -> None:
        if self.closed or self.step in ("planning", "moving"):
            return
        if self.step == "done":
            self.close()
            return
        args = {"libraryId": self.library_id, "database": self.database.get().strip()}
        if not args["database"]:
            self.error.configure(text=_("Type the studio database's address."))
            return
        self.error.configure(text="")
        if self.step == "confirm" and self.challenge:
            self._moving()
            self.future = self.commands.call(COMMAND, {**args, "confirmChallenge":
                                                       self.challenge}, self._moved,
                                             ticket=self.ticket)
            return
        self.step = "planning"
        self.confirm_button.state(["disabled"])
        self.commands.call(COMMAND, args, self._planned)

    def _planned(self, reply: Reply) -> None:
        if self.closed:
            return
        self.confirm_button.state(["!disabled"])
        if not reply.needs_confirmation:
            self._failed(reply)
            return
        report = reply.risk_report
        self.challenge = reply.challenge["id"] if reply.challenge else None
        count = int(report.get("count") or 0)
        self.message.configure(text=ngettext(
            "The records of {n} asset move to the database; its files stay in the folder. "
            "The database on this computer is kept in {aside}. Move it now?",
            "The records of {n} assets move to the database; their files stay in the folder. "
            "The database on this computer is kept in {aside}. Move it now?", count).format(
            n=humanize.number(count), aside=str(self.folder / SET_ASIDE)))
        self.confirm_button.configure(text=_("Move now"))
        self.entry.state(["disabled"])
        self.step = "confirm"

    def _moving(self) -> None:
        self.step = "moving"
        self.confirm_button.state(["disabled"])
        self.message.configure(text=_("Moving the records…"))
        self.bar.pack(fill="x", before=self.message, pady=(self.theme.px(10), 0))
        self.bar.start(50)

    def progress(self, event: Any) -> None:
        """A gateway `TaskProgress` of this dialog's move."""
        if self.closed or getattr(event, "ticket", None) != self.ticket or self.step != \
                "moving":
            return
        total = int(event.total or 0)
        if total > 0:
            self.bar.stop()
            self.bar.configure(mode="determinate", maximum=total, value=event.done)
            self.message.configure(text=_("Moving the records: {done} of {total}…").format(
                done=humanize.number(event.done), total=humanize.number(total)))

    def _moved(self, reply: Reply) -> None:
        if self.closed:
            return
        self.bar.stop()
        self.bar.pack_forget()
        if not reply.ok:
            self._failed(reply)
            return
        self.step = "done"
        self.message.configure(text=_(
            "Done: “{name}” is a studio library now. Others open its folder to work on it "
            "with you; the database on this computer is kept in {aside}.").format(
            name=self.name, aside=str(reply.result.get("setAside", ""))))
        self.confirm_button.configure(text=_("Close"))
        self.confirm_button.state(["!disabled"])
        self.cancel_button.pack_forget()

    def _failed(self, reply: Reply) -> None:
        words = _REASONS.get(reply.reason) or (_CODES.get(reply.code) if reply.code else None)
        self.error.configure(text=_(words) if words else describe_error(reply))
        self.message.configure(text="")
        self.step = "ask"
        self.challenge = None
        self.entry.state(["!disabled"])
        self.confirm_button.configure(text=_("Move…"))
        self.confirm_button.state(["!disabled"])

    def cancel(self) -> None:
        if self.step == "moving" and self.future is not None:
            self.message.configure(text=_("Cancelling…"))
            self.cancel_button.state(["disabled"])
            self.future.cancel()  # the gateway passes it on: the move stops before the switch
            return
        self.close()

    def close(self) -> None:
        self._off()
        super().close()


def ask_move_to_studio(window: Any) -> MoveToStudioDialog | None:
    """The dialog for the library `window` (the main window) shows."""
    current = window.session.current
    if current is None:
        return None
    return MoveToStudioDialog(window.root, window.theme, window.commands, dict(current),
                              window.services.bus.subscribe)


def move_to_studio(window: Any) -> None:
    """Library menu → Move to a studio server…"""
    ask_move_to_studio(window)
