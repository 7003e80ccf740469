"""Paste to import (issue 27): Ctrl+V imports the files a file manager copied and the picture
a browser or an image editor copied, where a drop would go; in a text field it pastes text.
The clipboard's owner is another X client, `xclip`, as a file manager or a browser would be
(so Tk's real X11 selection transfer is what is tested, bytes and all)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image

from serpent_tk.ui.actions.clipboard_import import paths_in, tk_bytes
from tests.ui.conftest import App, make_images

pytestmark = pytest.mark.gui

XCLIP = shutil.which("xclip") or "xclip"     # found before a test hides it from the window


class Owner:
    """`xclip` holding one type on the CLIPBOARD until stopped."""

    def __init__(self) -> None:
        self.process: subprocess.Popen[bytes] | None = None

    def hold(self, app: App, kind: str, data: bytes) -> None:
        self.stop()
        self.process = subprocess.Popen(
            [XCLIP, "-quiet", "-selection", "clipboard", "-t", kind, "-i"],
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.close()

        def offered() -> bool:
            try:
                return kind in app.root.tk.splitlist(app.root.tk.call(
                    "clipboard", "get", "-type", "TARGETS"))
            except Exception:
                return False

        app.pump(offered, f"xclip offering {kind}")

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(10)
            self.process = None


@pytest.fixture
def clipboard(display: str) -> Iterator[Owner]:
    if sys.platform != "linux":
        pytest.skip("the X11 clipboard")
    if shutil.which("xclip") is None:
        pytest.fail("xclip is not installed: run `python3 -m serpent_tk.bootstrap test` "
                    "(or apt install xclip)")
    owner = Owner()
    try:
        yield owner
    finally:
        owner.stop()


def names(app: App) -> list[str]:
    pages = app.window.pages
    return [str(pages.item(i)["name"]) for i in range(pages.count())]  # type: ignore[index]


def paste(app: App) -> None:
    widget = app.window.grid.canvas
    widget.focus_force()
    app.root.update()
    widget.event_generate("<Control-v>")
    app.root.update()


def test_ctrl_v_imports_copied_files_and_pictures(app: App, tmp_path: Path, clipboard: Owner,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    library_id = app.open_default()
    window = app.window
    copied = make_images(tmp_path / "copied", 2, prefix="晚霞 copy")
    folder = app.gateway_call("folder.create", {"libraryId": library_id, "name": "Pasted"})
    iid = f"folder:{folder['id']}"
    app.pump(lambda: window.sidebar.tree.exists(iid), "the folder")
    window.sidebar.select(iid)
    app.pump(lambda: window.browser.scope.iid == iid and window.pages.known, "the folder")

    # files copied in a file manager: a uri-list (escaped, with a line that is not a file)
    uris = "".join(f"{p.as_uri()}\r\n" for p in copied) + "file:///nowhere/gone.png\r\n"
    clipboard.hold(app, "text/uri-list", uris.encode())
    paste(app)
    app.pump(lambda: window.pages.count() == 2 and not window.importer.busy,
             "the copied files in the folder")
    assert sorted(names(app)) == ["晚霞 copy-00", "晚霞 copy-01"]

    # a picture copied from a browser: PNG bytes on the clipboard, read by Tk itself (no
    # xclip or wl-paste on the PATH the window sees)
    picture = Image.new("RGB", (120, 80), (200, 40, 40))
    png = tmp_path / "red.png"
    picture.save(png)
    clipboard.hold(app, "image/png", png.read_bytes())
    leftovers = set(Path(tempfile.gettempdir()).glob("serpent-paste-*"))
    no_tools = tmp_path / "no-tools"
    no_tools.mkdir()
    path = os.environ["PATH"]
    monkeypatch.setenv("PATH", str(no_tools))
    paste(app)
    app.pump(lambda: window.pages.count() == 3 and not window.importer.busy,
             "the pasted picture")
    pasted = next(n for n in names(app) if n.startswith("Pasted image "))
    item = next(window.pages.item(i) for i in range(3)
                if window.pages.item(i)["name"] == pasted)  # type: ignore[index]
    assert (item["ext"], item["width"], item["height"]) == ("png", 120, 80)  # type: ignore[index]
    assert set(Path(tempfile.gettempdir()).glob("serpent-paste-*")) == leftovers

    # a big screenshot sent in one piece, past what Tk reads so: without xclip the window
    # says what to install; with it, xclip reads it whole
    big = Image.effect_noise((900, 700), 80).convert("RGB")
    big_png = tmp_path / "big.png"
    big.save(big_png)
    assert big_png.stat().st_size > 400_000
    clipboard.hold(app, "image/png", big_png.read_bytes())
    paste(app)
    app.pump(lambda: any("install xclip" in t for t in window.toasts.texts()),
             "the advice to install xclip")
    assert window.pages.count() == 3
    monkeypatch.setenv("PATH", path)
    clipboard.hold(app, "image/png", big_png.read_bytes())
    paste(app)
    app.pump(lambda: window.pages.count() == 4 and not window.importer.busy,
             "the big pasted picture")
    big_item = next(window.pages.item(i) for i in range(4)
                    if window.pages.item(i)["width"] == 900)  # type: ignore[index]
    assert big_item["height"] == 700  # type: ignore[index]

    # text that is a path: imported too; other text: nothing, and the window says so
    other = tmp_path / "more" / "from text.png"           # not a copy of what is in
    other.parent.mkdir()
    Image.new("RGB", (64, 48), (20, 160, 90)).save(other)
    clipboard.hold(app, "UTF8_STRING", str(other).encode())
    paste(app)
    app.pump(lambda: window.pages.count() == 5 and not window.importer.busy, "the path")
    clipboard.hold(app, "UTF8_STRING", b"just some words")
    paste(app)
    app.pump(lambda: "The clipboard holds no picture or file to import." in
             window.toasts.texts(), "the warning")
    assert window.pages.count() == 5

    # in the search field Ctrl+V pastes the words; nothing is imported
    window.search.entry.focus_force()
    app.root.update()
    window.search.entry.event_generate("<<Paste>>")
    window.search.entry.event_generate("<Control-v>")
    app.pump(lambda: "just some words" in window.search.entry.get(), "the pasted words")
    app.settle(0.3)
    assert not window.importer.busy and window.pages.count() == 5


def test_what_the_clipboard_words_name() -> None:
    """The words of a uri-list, GNOME's copied files and pasted text, and Tk's hex bytes."""
    here = Path(__file__).resolve()
    assert paths_in(f"copy\n{here.as_uri()}\n") == [str(here)]
    assert paths_in(f"# comment\r\n{here.as_uri()}\r\nfile:///nowhere/x.png\r\n") == [
        str(here)]
    assert paths_in(f'"{here}"\nhttps://example.com/a.png\nfile://otherhost{here}') == [
        str(here)]
    assert paths_in("not a path\nrelative/file.png") == []
    assert tk_bytes("0x89 0x50 0x4e 0x47 0xd 0xa") == b"\x89PNG\r\n"
    assert tk_bytes("0xcafe is not a byte list") == b"0xcafe is not a byte list"
    assert tk_bytes("晚霞") == "晚霞".encode()
