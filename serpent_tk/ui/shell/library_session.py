"""Which library the window shows: the first-run library, opening, creating, switching.

Tk thread only; disk checks run in the background and commands go through the gateway
(`library.open`, `library.create`, `library.list-open`, `library.list-recent`). The first
start creates "My Library" in the user data folder, so there is always something to show.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from serpent_tk.paths import DEFAULT_LIBRARY_NAME, app_dirs
from serpent_tk.settings import Settings
from serpent_tk.ui.language.translate import _
from serpent_tk.ui.shell.commands import Commands, Reply, describe_error

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

        def choose_and_open() -> tuple[str, Path, Future[dict[str, Any]] | None]:
            action, path = first_choice(last)
            opening = (self.commands.submit("library.open", {"path": str(path)})
                       if action == "open" else None)
            return action, path, opening

        self.commands.background(choose_and_open, self._first_chosen)
        self.commands.prepare("asset.search")  # the first page's query, while the library opens

    def _first_chosen(self, chosen: tuple[str, Path, Future[dict[str, Any]] | None] | None,
                      error: BaseException | None) -> None:
        if error is None and chosen is not None and chosen[2] is not None:
            self.commands.reply_on_tk("library.open", chosen[2], self._opened_reply)
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
        self.commands.call("library.open", {"path": str(path)}, self._opened_reply)

    def create(self, parent: str | Path, name: str) -> None:
        self.commands.call("library.create", {"selectedParentPath": str(parent), "name": name},
                           self._opened_reply)

    def _opened_reply(self, reply: Reply) -> None:
        if reply.ok:
            self.show(reply.result)
            self._settle()
            return
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
