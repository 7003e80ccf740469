"""A library that does not open because it is damaged: the window offers to recover it into a
new library beside it, and when the person agrees it shows the new library with a toast that
says what came back; the damaged library is left as it was."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from tests.ui.conftest import App, make_images

pytestmark = pytest.mark.gui


def test_a_damaged_library_is_offered_for_repair_and_shown_recovered(app: App,
                                                                     tmp_path: Path) -> None:
    app.open_default()
    parent = tmp_path / "libraries"
    parent.mkdir()
    made = app.gateway_call("library.create", {"selectedParentPath": str(parent),
                                               "name": "Sketches"})
    app.gateway_call("file.import", {"libraryId": made["libraryId"], "sourcePaths": [
        str(p) for p in make_images(tmp_path / "src", 3)]})
    app.gateway_call("library.close", {"libraryId": made["libraryId"]})
    database = Path(made["path"]) / "library.sqlite"
    database.write_bytes(b"not a database!!" * 8 + database.read_bytes()[128:])
    damaged = hashlib.sha256(database.read_bytes()).hexdigest()

    window = app.window
    window.session.open_path(made["path"])
    dialog = app.pump(lambda: (d := window.repair_offer.dialog) is not None and
                      d.winfo_ismapped() and d, "the offer to repair it")
    assert str(dialog.heading.cget("text")) == "“Sketches” cannot be opened: it is damaged"
    assert "“Sketches (recovered)”" in str(dialog.text.cget("text"))
    app.shot(tmp_path, "repair-offer", dialog)
    dialog.confirm()
    app.pump(lambda: (window.session.current or {}).get("name") == "Sketches (recovered)",
             "the recovered library shown")
    app.pump(lambda: window.pages.known and window.pages.count() == 3, "its three pictures")
    app.pump(lambda: any("Recovered 3 assets into “Sketches (recovered)”." in t
                         for t in window.toasts.texts()), "the toast saying what came back")
    assert hashlib.sha256(database.read_bytes()).hexdigest() == damaged


def test_declining_the_offer_changes_nothing(app: App, tmp_path: Path) -> None:
    library_id = app.open_default()
    folder = tmp_path / "Broken.serpent"
    folder.mkdir()
    (folder / "library.sqlite").write_bytes(b"x" * 8192)
    window = app.window
    window.session.open_path(folder)
    dialog = app.pump(lambda: (d := window.repair_offer.dialog) is not None and
                      d.winfo_ismapped() and d, "the offer to repair it")
    dialog.cancel()
    app.settle(0.3)
    assert window.session.library_id == library_id, "the library on show stays"
    assert sorted(p.name for p in tmp_path.iterdir() if "Broken" in p.name) == \
        ["Broken.serpent"], "no new library"
    assert (folder / "library.sqlite").read_bytes() == b"x" * 8192
