"""The inspector for files that are not plain pictures and for text found in pictures: a
video's duration and codec, a PDF's pages, a font's family and style; the words an analyser
found in a picture (as the `ocr-text` plugin records them), read-only but selectable and
copied to the clipboard by Copy (or the selection only); the Chinese window says the same."""

from __future__ import annotations

from pathlib import Path

import pytest

from serpent_tk.automation.caller import Caller
from tests.library import mediafiles
from tests.ui.conftest import App
from tests.ui.inspector.test_inspector_facts import select

pytestmark = pytest.mark.gui

FOUND = "夏日音乐节\nSummer Music Festival"


def test_media_facts_and_the_text_found_in_a_picture(app: App, tmp_path: Path) -> None:
    library_id = app.open_default()
    sources = tmp_path / "media"
    paths = [mediafiles.make_video(sources / "clip.mp4", (160, 90), seconds=65.0, rate=2),
             mediafiles.make_pdf(sources / "brief.pdf", pages=3),
             mediafiles.make_font(sources / "display.ttf", family="Serpent Display",
                                  style="Heavy")]
    from PIL import Image

    Image.new("RGB", (320, 200), (200, 180, 150)).save(sources / "poster.png")
    paths.append(sources / "poster.png")
    app.import_images(paths)
    window = app.window
    inspector = window.inspector

    select(app, "clip")
    app.pump(lambda: inspector.facts.get("Duration") == "1:05", "the video's duration")
    assert inspector.facts["Codec"] == "h264" and inspector.facts["Dimensions"].startswith(
        "160 × 90")
    select(app, "brief")
    app.pump(lambda: inspector.facts.get("Pages") == "3", "the PDF's pages")
    select(app, "display")
    app.pump(lambda: inspector.facts.get("Font") == "Serpent Display Heavy", "the font")
    assert not inspector.found.winfo_ismapped()  # nothing found in it

    poster = select(app, "poster")["id"]
    recorded = app.services.gateway.submit("analyser.record", {
        "libraryId": library_id, "analyser": "ocr-text/read-text", "version": 1,
        "found": {poster: FOUND}}, Caller.plugin("ocr-text"))
    app.pump(recorded.done, "the found text recorded")
    assert recorded.result()["status"] == "ok", recorded.result()
    app.pump(lambda: inspector.found.winfo_ismapped() and inspector.found.value == FOUND,
             "the found text in the inspector")
    assert not any("ocr-text" in t for t in window.toasts.texts())  # background, no toast
    text = inspector.found.text
    text.focus_force()
    text.event_generate("<Key>", keysym="x")  # typing changes nothing: read-only
    app.root.update()
    assert inspector.found.value == FOUND
    inspector.found.copy_button.invoke()
    assert app.root.clipboard_get() == FOUND
    text.tag_add("sel", "1.0", "1.5")  # a selection: only it is copied
    inspector.found.copy_button.invoke()
    assert app.root.clipboard_get() == "夏日音乐节"
    app.shot(tmp_path, "inspector-found-text")
