"""Dragging assets: inside the window a drag image follows the pointer and the sidebar row it
would drop on lights up; out of the window the grid is a TkDND file drag source that hands
other apps copies under the assets' own names — tested with a real pointer (XTEST) dropping
into another process's XDND drop target."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

from tests.ui.actions.xtest import Pointer
from tests.ui.conftest import App, make_images
from tests.waiting import Deadline

pytestmark = pytest.mark.gui


def row_centre(app: App, iid: str) -> tuple[int, int]:
    tree = app.window.sidebar.tree
    tree.see(iid)
    app.settle(0.1)
    x, y, w, h = tree.bbox(iid)  # type: ignore[misc]
    return tree.winfo_rootx() + x + w // 2, tree.winfo_rooty() + y + h // 2


def test_drag_image_highlighted_target_and_the_files_it_carries(app: App,
                                                                tmp_path: Path) -> None:
    library_id = app.open_default()
    sources = make_images(tmp_path / "refs", 2, prefix="portrait")
    app.import_images(sources)
    window = app.window
    canvas, drag, sidebar = window.grid.canvas, window.drag_out, window.sidebar
    assert drag.system, "tkdnd's drag source should be on under X11"
    assert "TkDND_Drag1" not in canvas.bindtags()      # we start it, not a 3-pixel wobble
    assert "text/uri-list" in str(canvas.bind("<<DragSourceTypes>>"))
    assert canvas.bind("<<DragInitCmd>>")
    folder = app.gateway_call("folder.create", {"libraryId": library_id, "name": "Skies"})
    iid = f"folder:{folder['id']}"
    app.pump(lambda: sidebar.tree.exists(iid), "the folder row")
    keys = [window.pages.cell(i).key for i in (0, 1)]  # type: ignore[union-attr]
    window.grid.select_keys(keys)
    x, y = row_centre(app, iid)

    window.grid.on_drag(keys, "motion", x, y)  # type: ignore[misc]
    app.settle(0.2)
    assert drag.label is not None and drag.label.winfo_ismapped()
    assert drag.label_text == "2 assets"
    assert abs(drag.label.winfo_rootx() - x) < 40 and abs(drag.label.winfo_rooty() - y) < 40
    assert sidebar.drop_target == iid and "drop-target" in sidebar.tree.item(iid, "tags")
    app.shot(tmp_path, "drag-onto-sidebar-light")

    app.pump(lambda: drag.files, "the copies for other apps")
    actions, types, data = drag.drag_init()
    assert actions == ("copy",) and types == ("DND_Files",)
    paths = [Path(unquote(urlparse(uri).path)) for uri in data]
    assert sorted(p.name for p in paths) == ["portrait-00.png", "portrait-01.png"]
    for path in paths:
        assert path.read_bytes() == (tmp_path / "refs" / path.name).read_bytes()
        assert Path(str(window.session.current["path"])) not in path.parents  # type: ignore[index]

    window.grid.on_drag(keys, "drop", x, y)  # type: ignore[misc]
    assert drag.label is None and sidebar.drop_target is None
    assert "drop-target" not in sidebar.tree.item(iid, "tags")
    app.pump(lambda: sidebar.tree.set(iid, "count") == "2", "the assets in the folder")


@pytest.mark.skipif(sys.platform != "linux", reason="XDND is the X11 protocol")
def test_dragging_out_drops_the_files_into_another_app(app: App, tmp_path: Path,
                                                       display: str) -> None:
    app.open_default()
    sources = make_images(tmp_path / "refs", 1, prefix="sunset over the bay")
    app.import_images(sources)
    window = app.window
    drag = window.drag_out
    key = window.pages.cell(0).key  # type: ignore[union-attr]
    received = tmp_path / "received.json"
    target = subprocess.Popen(
        [sys.executable, str(Path(__file__).with_name("xdnd_target.py")), str(received),
         "160x200+1430+120"], stdout=subprocess.PIPE, text=True)
    pointer = Pointer(display)
    try:
        assert target.stdout is not None
        assert target.stdout.readline().startswith("ready")
        x0, y0 = window.grid._origin(0)
        canvas = window.grid.canvas
        start = (canvas.winfo_rootx() + int(x0) + 30, canvas.winfo_rooty() + int(y0) + 30)
        problems: list[BaseException] = []

        def hand() -> None:
            try:
                pointer.move(*start)
                time.sleep(0.2)
                pointer.button(True)
                pointer.glide(start[0] + 40, start[1] + 10, steps=6)
                deadline = Deadline(20)
                while not drag.files and not deadline.passed():
                    pointer.glide(pointer.x + 1, pointer.y, steps=1)   # keep the drag alive
                pointer.glide(1510, 220, steps=25)                    # out, onto the target
                pointer.glide(1512, 222, steps=4)
                time.sleep(0.3)
                pointer.button(False)
            except BaseException as error:
                problems.append(error)

        driver = threading.Thread(target=hand, daemon=True)
        driver.start()
        window.grid.select_keys([key])
        app.pump(lambda: received.exists() and received.read_text(), "the other app's drop",
                 timeout=40)
        driver.join(10)
        assert not problems, problems
    finally:
        pointer.button(False)
        # back where a fresh Xvfb has it: with no window manager the keyboard follows the
        # pointer, and later tests' windows must get their keys
        pointer.move(800, 500)
        pointer.close()
        target.kill()
        target.wait(10)
        if target.stdout is not None:
            target.stdout.close()
    import json

    dropped = json.loads(received.read_text())
    assert [Path(f).name for f in dropped["files"]] == ["sunset over the bay-00.png"]
    assert Path(dropped["files"][0]).read_bytes() == sources[0].read_bytes()
    app.pump(lambda: not drag.active, "the drag to end")
    assert window.pages.count() == 1                 # nothing was imported back by accident
