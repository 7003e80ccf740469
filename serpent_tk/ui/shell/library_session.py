"""Which library the window shows: the first-run library, opening, creating, switching.

Tk thread only; disk checks run in the background and commands go through the gateway
(`library.open`, `library.create`, `library.list-open`, `library.list-recent`). The first
start creates "My Library" in the user data folder, so there is always something to show. A
library that does not open because its database is damaged (LIBRARY_DAMAGED) goes to
`on_damaged`: `RepairOffer` asks whether to recover what can still be read into a new library
beside it (`library.repair`), shows that one, and says in a toast what came back.
"""

from __future__ import annotations

import logging
import tkinter as tk
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from library.errors import ErrorCode
from library.library_folder import LIBRARY_SUFFIX
from serpent_tk.automation.envelope import Envelope
from serpent_tk.paths import DEFAULT_LIBRARY_NAME, app_dirs
from serpent_tk.settings import Settings
from serpent_tk.ui.language.translate import _, ngettext
from serpent_tk.ui.shell.commands import Commands, Reply, describe_error
from serpent_tk.ui.shell.dialogs import ConfirmDialog
from serpent_tk.ui.shell.theme import Theme

log = logging.getLogger(__name__)

LibraryRef = dict[str, Any]   # {"libraryId", "name", "path"}


def first_choice(last_library: Path | None) -> tuple[str, Path]:
    """Runs in the background: ("open", path) or ("create", parent folder). Thread-safe."""
    dirs = app_dirs()
    if last_library is not None and Path(last_library).is_dir():
        return "open", Path(last_library)
    if dirs.default_library.is_dir():
        return "open", dirs.default_library
    dirs.libraries.mkdir(parents=True, exist_ok=True)
    return "create", dirs.libraries


class LibrarySession:
    def __init__(self, commands: Commands, settings: Settings) -> None:
        self.commands = commands
        self.settings = settings
        self.current: LibraryRef | None = None
        self.on_opened: Callable[[LibraryRef], None] = lambda ref: None
        self.on_closed: Callable[[str], None] = lambda reason: None
        self.on_problem: Callable[[str], None] = lambda text: None
        # a library that does not open because it is damaged: the window offers to repair it
        self.on_damaged: Callable[[Path], None] | None = None
        self.on_first_settled: Callable[[], None] = lambda: None  # once: opened or given up
        self._fallback_tried = False
        self._settled = False

    @property
    def library_id(self) -> str | None:
        return self.current["libraryId"] if self.current else None

    def start(self) -> None:
        """Open the last library, else the default one, creating it on the first run.

        The background thread that chose the library also sends its `library.open`: the
        Tk loop is busy laying out and drawing the new window, and the first page should
        not wait for it to pass the choice on."""
        last = self.settings.last_library

        def choose_and_open() -> tuple[str, Path, Future[Envelope] | None]:
            action, path = first_choice(last)
            opening = (self.commands.submit("library.open", {"path": str(path)})
                       if action == "open" else None)
            return action, path, opening

        self.commands.background(choose_and_open, self._first_chosen)
        self.commands.prepare("asset.search")  # the first page's query, while the library opens

    def _first_chosen(self, chosen: tuple[str, Path, Future[Envelope] | None] | None,
                      error: BaseException | None) -> None:
        if error is None and chosen is not None and chosen[2] is not None:
            path = chosen[1]
            self.commands.reply_on_tk("library.open", chosen[2],
                                      lambda reply: self._opened_reply(reply, path))
            return
        self._chosen(chosen[:2] if chosen is not None else None, error)

    def _chosen(self, choice: tuple[str, Path] | None, error: BaseException | None) -> None:
        if error is not None or choice is None:
            self.on_problem(_("Your library folder could not be prepared: {error}").format(
                error=error))
            self._settle()
            return
        action, path = choice
        if action == "open":
            self.open_path(path)
        else:
            self.create(path, DEFAULT_LIBRARY_NAME)

    def open_path(self, path: str | Path) -> None:
        self.commands.call("library.open", {"path": str(path)},
                           lambda reply: self._opened_reply(reply, Path(path)))

    def create(self, parent: str | Path, name: str, database: str | None = None) -> None:
        """Make the library and show it (`database`: a studio library's PostgreSQL URI)."""
        args = {"selectedParentPath": str(parent), "name": name}
        if database:
            args["database"] = database
        self.commands.call("library.create", args, self._opened_reply)

    def _opened_reply(self, reply: Reply, path: Path | None = None) -> None:
        if reply.ok:
            self.show(reply.result)
            self._settle()
            return
        if reply.code == ErrorCode.LIBRARY_DAMAGED and path is not None and self.on_damaged:
            self.on_damaged(path)
        else:
            self.on_problem(describe_error(reply, _("open the library")))
        if self.current is None and not self._fallback_tried:
            # The last library could not be opened (moved, damaged): fall back to the default.
            self._fallback_tried = True
            self.commands.background(lambda: first_choice(None), self._chosen)
            return
        self._settle()

    def _settle(self) -> None:
        if not self._settled:
            self._settled = True
            self.on_first_settled()

    def show(self, ref: LibraryRef) -> None:
        """Make `ref` (already open in the gateway) the library the window shows."""
        self.current = {"libraryId": ref["libraryId"], "name": ref.get("name", ""),
                        "path": ref.get("path", "")}
        self.on_opened(self.current)

    def resume(self, ref: LibraryRef) -> None:
        """Show `ref` in a window rebuilt around it (it is open: nothing starts again)."""
        self._settled = True
        self._fallback_tried = True
        self.show(ref)

    def renamed(self, library_id: str, name: str) -> None:
        if self.current and self.current["libraryId"] == library_id and name:
            self.current = {**self.current, "name": name}
            self.on_opened(self.current)

    def closed(self, library_id: str, reason: str) -> None:
        if self.current and self.current["libraryId"] == library_id:
            self.on_closed(reason)

    def reopen(self) -> None:
        if self.current:
            self.open_path(self.current["path"])

    def list_libraries(self, deliver: Callable[[list[dict[str, Any]]], None]) -> None:
        """Open and recent libraries (open ones first, no duplicates) for the switcher."""
        def recent(reply: Reply) -> None:
            items = list(reply.result.get("items", [])) if reply.ok else []
            deliver(items)

        self.commands.call("library.list-recent", {}, recent)


Toast = Callable[[str, str], None]  # (text, level)


class RepairOffer:
    """Offers `library.repair` for a library that did not open because it is damaged; the
    damaged library is never changed, whatever the person answers. One offer at a time."""

    def __init__(self, root: tk.Misc, theme: Theme, commands: Commands,
                 show: Callable[[dict[str, Any]], None], toast: Toast) -> None:
        self.root = root
        self.theme = theme
        self.commands = commands
        self.show = show  # makes the recovered library the one the window shows
        self.toast = toast
        self.dialog: ConfirmDialog | None = None

    def offer(self, path: Path) -> None:
        """Ask whether to recover the damaged library at `path`."""
        if self.dialog is not None and not self.dialog.closed:
            return
        name = path.name.removesuffix(LIBRARY_SUFFIX)
        self.dialog = ConfirmDialog(
            self.root, self.theme, title=_("Damaged library"),
            heading=_("“{name}” cannot be opened: it is damaged").format(name=name),
            text=_("Serpent cannot read part of this library's database. It can recover what "
                   "it can still read (assets with their tags, notes, folders and "
                   "collections, and every stored file) into a new library beside it, "
                   "“{name} (recovered)”. The damaged library is left as it is.").format(
                       name=name),
            confirm_label=_("Recover into a new library"),
            on_confirm=lambda: self._repair(path))

    def _repair(self, path: Path) -> None:
        self.toast(_("Recovering “{name}”…").format(name=path.name.removesuffix(LIBRARY_SUFFIX)),
                   "info")
        self.commands.call("library.repair", {"path": str(path)}, self._repaired)

    def _repaired(self, reply: Reply) -> None:
        if not reply.ok:
            self.toast(describe_error(reply, _("recover the library")), "error")
            return
        result = reply.result
        self.show(result)
        count = int(result.get("assets", 0))
        text = ngettext("Recovered {count} asset into “{name}”.",
                        "Recovered {count} assets into “{name}”.", count).format(
                            count=f"{count:,}", name=result.get("name", ""))
        if not result.get("complete"):
            text += " " + _("Parts of the damaged library could not be read.")
        adopted = int(result.get("filesAdopted", 0))
        if adopted:
            text += " " + ngettext(
                "{count} file whose details were lost is in the folder “Recovered files”.",
                "{count} files whose details were lost are in the folder “Recovered files”.",
                adopted).format(count=f"{adopted:,}")
        self.toast(text + " " + _("The damaged library is left as it is."),
                   "info" if result.get("complete") else "warning")
