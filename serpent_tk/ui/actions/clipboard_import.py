"""Paste (Ctrl+V / Cmd+V) imports what the clipboard holds: files copied in a file manager,
and a picture copied from a browser, an image editor or a screenshot tool. Tk thread only:
the clipboard is read where the window runs; the import is the window's own (`importing`).

What each system offers, and how it is read:

- X11 (Linux, BSD; Wayland desktops hand X11 programs the same clipboard through XWayland):
  Tk's own clipboard. Files: `text/uri-list` or `x-special/gnome-copied-files` (Nautilus,
  Dolphin, Thunar, Nemo, Caja), or text that is file paths. A picture: `image/png`,
  `image/jpeg`, `image/webp`, `image/gif`, `image/bmp` as the program that copied it offers
  them, read by `xclip` or `wl-paste` when installed (any size, the bytes as sent), else by
  Tk, which reads a picture the owner sends in one piece only up to 400 KB (GTK and Qt
  programs send anything past 256 KB in pieces, which Tk reads whole); past that the
  window says what to install.
- Windows: files copied in Explorer (CF_HDROP) and pictures (PNG, DIB) through Pillow's
  ImageGrab; text that is file paths through Tk.
- macOS: a picture (PNG) through Pillow's ImageGrab (`osascript`); a file copied in Finder
  through `osascript` (`the clipboard as «class furl»`: one file); text paths through Tk.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import tkinter as tk
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from serpent_tk.ui.language.translate import _

log = logging.getLogger(__name__)

FILE_TYPES = ("text/uri-list", "x-special/gnome-copied-files")
# a picture's type on the clipboard -> the file it is saved as (kept as it is: no re-encode)
PICTURE_TYPES = {"image/png": "png", "image/jpeg": "jpg", "image/webp": "webp",
                 "image/gif": "gif", "image/bmp": "bmp", "image/x-bmp": "bmp"}
OSASCRIPT_TIMEOUT_S = 5
TOOL_TIMEOUT_S = 5               # xclip / wl-paste reading a picture


@dataclass
class Clip:
    """What the clipboard holds that can be imported."""

    paths: list[str] = field(default_factory=list)
    picture: bytes = b""           # a picture file's bytes, with its `ext`
    ext: str = ""
    problem: str = ""              # why a picture that is there could not be read


# -- reading the words the clipboard holds -------------------------------------------------
def tk_bytes(value: object) -> bytes:
    """What Tk answered for a clipboard type: the text, or, for a type Tk does not know as
    text (text/uri-list, image/png...), its bytes as a list of hex numbers ("0x89 0x50")."""
    text = str(value)
    words = text.split()
    if words and all(w.startswith("0x") for w in words[:64]):
        with contextlib.suppress(ValueError):
            return bytes(int(w, 16) for w in words)
    return text.encode("utf-8")


def paths_in(text: str) -> list[str]:
    """The existing files and folders `text` names: file:// URIs (a uri-list, GNOME's
    copied files, a browser's) or absolute paths, one a line; other lines are left out."""
    found: list[str] = []
    for line in text.replace("\r", "\n").split("\n"):
        line = line.strip().strip('"')
        if not line or line.startswith("#") or line in ("copy", "cut"):
            continue
        if line.startswith("file:"):
            parsed = urlparse(line)
            if parsed.netloc not in ("", "localhost"):
                continue
            line = unquote(parsed.path)
            if sys.platform == "win32" and line.startswith("/") and line[2:3] == ":":
                line = line[1:]                              # file:///C:/x -> C:/x
        path = Path(line).expanduser()
        if path.is_absolute() and path.exists() and str(path) not in found:
            found.append(str(path))
    return found


# -- each system's clipboard ---------------------------------------------------------------
def _tk_get(root: tk.Misc, kind: str) -> bytes | None:
    try:
        return tk_bytes(root.tk.call("clipboard", "get", "-displayof", str(root), "-type",
                                     kind))
    except tk.TclError as error:
        if "too large" in str(error):
            raise
        return None


def _offered(root: tk.Misc) -> list[str]:
    try:
        return list(root.tk.splitlist(root.tk.call("clipboard", "get", "-displayof",
                                                   str(root), "-type", "TARGETS")))
    except tk.TclError:
        return []


def _text(root: tk.Misc) -> str:
    for kind in ("UTF8_STRING", "STRING"):
        data = _tk_get(root, kind)
        if data:
            return data.decode("utf-8", "replace")
    return ""


def read_x11(root: tk.Misc) -> Clip:
    offered = _offered(root)
    for kind in FILE_TYPES:
        if kind in offered:
            paths = paths_in((_tk_get(root, kind) or b"").decode("utf-8", "replace"))
            if paths:
                return Clip(paths=paths)
    for kind, ext in PICTURE_TYPES.items():
        if kind in offered:
            tool = _picture_tool(kind)
            if tool:
                data = _run_tool(tool)
            else:
                try:
                    data = _tk_get(root, kind)
                except tk.TclError:
                    return Clip(problem=_(
                        "This picture is too big to paste here: install xclip (or "
                        "wl-clipboard) for bigger ones, or save it and drop the file on the "
                        "grid."))
            if data:
                return Clip(picture=data, ext=ext)
    return Clip(paths=paths_in(_text(root)))


def _picture_tool(kind: str) -> list[str]:
    """The command that reads a picture of type `kind` off the clipboard in full (no size
    limit, the bytes as the owner sent them), when one is installed: wl-paste on Wayland,
    xclip on X11. Asked before Tk: a transfer Tk gives up half-way (past 400 KB in one
    piece) can leave an owner such as xclip waiting for good."""
    if os.environ.get("WAYLAND_DISPLAY") and shutil.which("wl-paste"):
        return ["wl-paste", "--no-newline", "--type", kind]
    if shutil.which("xclip"):
        return ["xclip", "-selection", "clipboard", "-target", kind, "-out"]
    return []


def _run_tool(command: list[str]) -> bytes | None:
    try:
        done = subprocess.run(command, capture_output=True, timeout=TOOL_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as error:
        log.info("clipboard picture not read by %s: %s", command[0], error)
        return None
    return done.stdout if done.returncode == 0 else None


def _picture_from_pillow() -> Clip | None:
    """The clipboard through Pillow's ImageGrab: a list of files (Windows) or a picture."""
    from PIL import ImageGrab

    try:
        grabbed: Any = ImageGrab.grabclipboard()
    except (OSError, NotImplementedError, ChildProcessError, ValueError) as error:
        log.info("clipboard picture not read: %s", error)
        return None
    if isinstance(grabbed, list):
        paths = [p for p in grabbed if p and Path(p).exists()]
        return Clip(paths=paths) if paths else None
    if grabbed is None:
        return None
    out = io.BytesIO()
    grabbed.save(out, "PNG")
    return Clip(picture=out.getvalue(), ext="png")


def _finder_file() -> list[str]:
    """macOS: the file copied in Finder, if any."""
    try:
        done = subprocess.run(["osascript", "-e",  # i18n: not words (AppleScript)
                               "POSIX path of (the clipboard as «class furl»)"],
                              capture_output=True, text=True, timeout=OSASCRIPT_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired):
        return []
    return paths_in(done.stdout) if done.returncode == 0 else []


def read_clipboard(root: tk.Misc) -> Clip:
    """What the clipboard holds now, as this system offers it."""
    system = str(root.tk.call("tk", "windowingsystem"))
    if system == "x11":
        return read_x11(root)
    if system == "aqua":
        paths = _finder_file()
        if paths:
            return Clip(paths=paths)
    found = _picture_from_pillow()
    if found is not None:
        return found
    try:
        return Clip(paths=paths_in(root.clipboard_get()))
    except tk.TclError:
        return Clip()


# -- pasting -------------------------------------------------------------------------------
class ClipboardImport:
    """Edit → Paste: imports the clipboard's files, or its picture saved as a file named
    "Pasted image <date time>.<ext>", where a drop would go (the folder or tag shown)."""

    def __init__(self, root: tk.Misc, importer: Any, import_paths: Callable[[list[str]], None],
                 toast: Callable[..., None],
                 read: Callable[[tk.Misc], Clip] = read_clipboard) -> None:
        self.root = root
        self.importer = importer
        self.import_paths = import_paths
        self.toast = toast
        self.read = read

    def paste(self) -> None:
        clip = self.read(self.root)
        if clip.paths:
            self.import_paths(clip.paths)
        elif clip.picture:
            self._import_picture(clip)
        else:
            self.toast(clip.problem or _("The clipboard holds no picture or file to import."),
                       "warning")

    def _import_picture(self, clip: Clip) -> None:
        if self.importer.busy:
            self.toast(_("An import is still running; wait for it or cancel it first."),
                       "warning")
            return
        folder = Path(tempfile.mkdtemp(prefix="serpent-paste-"))
        when = datetime.now().strftime("%Y-%m-%d %H.%M.%S")
        name = _("Pasted image {when}").format(when=when)
        path = folder / f"{name}.{clip.ext}"
        path.write_bytes(clip.picture)
        before = self.importer.on_finished

        def finished(run: Any) -> None:
            self.importer.on_finished = before
            shutil.rmtree(folder, ignore_errors=True)     # the library has its own copy
            before(run)

        self.importer.on_finished = finished
        self.import_paths([str(path)])
        if not self.importer.busy:                         # it did not start (no library)
            self.importer.on_finished = before
            shutil.rmtree(folder, ignore_errors=True)
