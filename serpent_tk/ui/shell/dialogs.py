"""Small dialogs that never block the event loop: confirm, danger confirm, ask for text.

Tk thread only. Each dialog is a Toplevel that calls back when the person decides; nothing
waits in a nested loop, so toasts, live updates and the MCP status keep moving meanwhile.
`Dialog.confirm()` / `.cancel()` are what the buttons call (tests call them too).
"""

from __future__ import annotations

import contextlib
import logging
import tkinter as tk
from collections.abc import Callable
from tkinter import ttk

from serpent_tk.ui.language.translate import _
from serpent_tk.ui.shell.theme import FONT_BODY, FONT_STRONG, FONT_SUBTITLE, Theme

log = logging.getLogger(__name__)


class Dialog(tk.Toplevel):
    """A transient, modal-looking window with a callback instead of a return value."""

    def __init__(self, parent: tk.Misc, theme: Theme, title: str) -> None:
        super().__init__(parent)
        self.theme = theme
        self.withdraw()
        self.title(title)
        self.configure(background=theme.palette.background)
        self.transient(parent.winfo_toplevel())
        self.resizable(False, False)
        self.protocol("WM_DELETE_WINDOW", self.cancel)
        self.bind("<Escape>", lambda e: self.cancel())
        self.result: object = None
        self.closed = False

    def present(self, focus: tk.Widget | None = None) -> None:
        """Show centred over the parent, take the grab when the window manager allows."""
        parent = self.master.winfo_toplevel()
        self.update_idletasks()
        width, height = self.winfo_reqwidth(), self.winfo_reqheight()
        x = parent.winfo_rootx() + max(0, (parent.winfo_width() - width) // 2)
        y = parent.winfo_rooty() + max(0, (parent.winfo_height() - height) // 3)
        self.geometry(f"+{x}+{y}")
        self.deiconify()
        self.lift()
        if focus is not None:
            focus.focus_set()
        self.after(50, self._grab)

    def _grab(self) -> None:
        if self.closed:
            return
        # not viewable yet (slow window manager): the grab is cosmetic, the dialog still works
        with contextlib.suppress(tk.TclError):
            self.grab_set()

    def confirm(self) -> None:
        raise NotImplementedError

    def cancel(self) -> None:
        self.close()

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        with contextlib.suppress(tk.TclError):
            self.grab_release()
        self.destroy()


class ConfirmDialog(Dialog):
    """"Do X?" with a title, an explanation and two buttons. `danger=True` paints it red:
    a red band and a red confirm button; Cancel keeps the focus."""

    def __init__(self, parent: tk.Misc, theme: Theme, *, title: str, heading: str,
                 text: str, confirm_label: str, on_confirm: Callable[[], object],
                 danger: bool = False) -> None:
        super().__init__(parent, theme, title)
        self.on_confirm = on_confirm
        self.danger = danger
        p, px = theme.palette, theme.px
        if danger:
            band = tk.Frame(self, background=p.danger, height=px(6))
            band.pack(fill="x")
        body = ttk.Frame(self, padding=(px(20), px(16), px(20), px(12)))
        body.pack(fill="both", expand=True)
        self.heading = tk.Label(body, text=heading, font=FONT_SUBTITLE, anchor="w",
                                justify="left", wraplength=px(380),
                                background=p.background,
                                foreground=p.danger if danger else p.text)
        self.heading.pack(fill="x")
        self.text = tk.Label(body, text=text, font=FONT_BODY, anchor="w", justify="left",
                             wraplength=px(380), background=p.background, foreground=p.text)
        self.text.pack(fill="x", pady=(px(8), px(16)))
        buttons = ttk.Frame(body)
        buttons.pack(fill="x")
        self.cancel_button = ttk.Button(buttons, text=_("Cancel"), command=self.cancel)
        self.cancel_button.pack(side="right")
        if danger:
            self.confirm_button: tk.Widget = tk.Button(
                buttons, text=confirm_label, command=self.confirm, font=FONT_STRONG,
                background=p.danger, foreground=p.danger_text, activebackground=p.danger,
                activeforeground=p.danger_text, relief="flat", borderwidth=0,
                padx=px(12), pady=px(4), cursor="hand2", highlightthickness=0)
        else:
            self.confirm_button = ttk.Button(buttons, text=confirm_label,
                                             command=self.confirm, style="Accent.TButton")
        self.confirm_button.pack(side="right", padx=(0, px(8)))
        self.bind("<Return>", lambda e: self._return_key())
        self.present(focus=self.cancel_button if danger else self.confirm_button)

    def _return_key(self) -> None:
        focused = self.focus_get()
        if focused is self.cancel_button:
            self.cancel()
        else:
            self.confirm()

    def confirm(self) -> None:
        if self.closed:
            return
        self.result = True
        self.close()
        self.on_confirm()


class AskTextDialog(Dialog):
    """Ask for one line of text (a name). `validate(text)` returns an error sentence or None;
    the error shows under the field and the dialog stays open."""

    def __init__(self, parent: tk.Misc, theme: Theme, *, title: str, prompt: str,
                 initial: str = "", confirm_label: str | None = None,
                 on_confirm: Callable[[str], None],
                 validate: Callable[[str], str | None] | None = None,
                 extra: Callable[[ttk.Frame], None] | None = None) -> None:
        super().__init__(parent, theme, title)
        self.on_confirm = on_confirm
        self.validate = validate
        px = theme.px
        body = ttk.Frame(self, padding=(px(20), px(16), px(20), px(12)))
        body.pack(fill="both", expand=True)
        ttk.Label(body, text=prompt, wraplength=px(340), justify="left").pack(anchor="w")
        self.value = tk.StringVar(value=initial)
        self.entry = ttk.Entry(body, textvariable=self.value, width=36)
        self.entry.pack(fill="x", pady=(px(6), px(2)))
        self.entry.select_range(0, "end")
        self.error = ttk.Label(body, style="Danger.TLabel", wraplength=px(340))
        self.error.pack(anchor="w")
        if extra is not None:
            holder = ttk.Frame(body)
            holder.pack(fill="x", pady=(px(6), 0))
            extra(holder)
        buttons = ttk.Frame(body)
        buttons.pack(fill="x", pady=(px(12), 0))
        ttk.Button(buttons, text=_("Cancel"), command=self.cancel).pack(side="right")
        self.confirm_button = ttk.Button(buttons, text=confirm_label or _("OK"),
                                         command=self.confirm, style="Accent.TButton")
        self.confirm_button.pack(side="right", padx=(0, px(8)))
        self.bind("<Return>", lambda e: self.confirm())
        self.present(focus=self.entry)

    def confirm(self) -> None:
        if self.closed:
            return
        text = self.value.get().strip()
        problem = self.validate(text) if self.validate else (None if text else
                                                              _("Please type a name."))
        if problem:
            self.error.configure(text=problem)
            return
        self.result = text
        self.close()
        self.on_confirm(text)


def full_access_dialog(parent: tk.Misc, theme: Theme, credential: str,
                       on_confirm: Callable[[], None]) -> ConfirmDialog:
    """The red warning before a credential gets Full Access."""
    return ConfirmDialog(
        parent, theme, title=_("Turn on Full Access"), danger=True,
        heading=_("Give “{name}” Full Access?").format(name=credential),
        text=_("With Full Access this AI client can use every Serpent tool without asking "
               "you first — including plugin tools, emptying the trash and deleting assets "
               "or whole libraries permanently (each permanent deletion still needs a second, "
               "exact call). Anyone who has this client's token gets the same power.\n\n"
               "Only do this for a client you trust, and switch back to Auto when you are "
               "done."),
        confirm_label=_("Turn on Full Access"), on_confirm=on_confirm)


class MessageDialog(Dialog):
    """A heading, some words and OK."""

    def __init__(self, parent: tk.Misc, theme: Theme, *, title: str, heading: str,
                 text: str) -> None:
        super().__init__(parent, theme, title)
        p, px = theme.palette, theme.px
        body = ttk.Frame(self, padding=(px(20), px(16), px(20), px(12)))
        body.pack(fill="both", expand=True)
        self.heading = tk.Label(body, text=heading, font=FONT_SUBTITLE, anchor="w",
                                justify="left", background=p.background, foreground=p.text)
        self.heading.pack(fill="x")
        self.text = tk.Label(body, text=text, font=FONT_BODY, anchor="w", justify="left",
                             wraplength=px(380), background=p.background, foreground=p.text)
        self.text.pack(fill="x", pady=(px(8), px(16)))
        self.ok_button = ttk.Button(body, text=_("OK"), style="Accent.TButton",
                                    command=self.cancel)
        self.ok_button.pack(side="right")
        self.bind("<Return>", lambda e: self.cancel())
        self.present(focus=self.ok_button)

    def confirm(self) -> None:
        self.cancel()


def about_dialog(parent: tk.Misc, theme: Theme) -> MessageDialog:
    from importlib.metadata import PackageNotFoundError, version

    try:
        number = version("serpent-tk")
    except PackageNotFoundError:
        number = _("(source checkout)")
    return MessageDialog(
        parent, theme, title=_("About Serpent"), heading=f"Serpent {number}",  # i18n: not words
        text=_("A library for your reference images and files, with an MCP server on this "
               "computer (127.0.0.1) so AI clients can organise it the way you would. Every "
               "change, yours or theirs, can be undone."))
