"""Undo per person in the window on a studio library (docs/studio.md): Edit → Undo takes back
the window's own last change while another machine's newer change stays, and that change
reads "Changed by Ben" in the inspector. Real Tk under Xvfb, the real gateway and worker, the
session's real PostgreSQL, and a second machine: a library host of its own machine name in
this process, as tests/library/studio does."""

from __future__ import annotations

from pathlib import Path

import pytest

from library.client import LibraryHost
from library.protocol import CallMeta
from tests.library.factories import TIMEOUT, call
from tests.ui.conftest import App, make_images

pytestmark = pytest.mark.gui

BEN = CallMeta(source="ui", label="You", person="Ben")  # his window, on his computer


def test_undo_in_the_window_takes_back_your_change_and_bens_stays(
        app: App, tmp_path: Path, postgres_database: str) -> None:
    app.open_default()
    window = app.window
    app.services.gateway.person = "Anna"  # Settings → General
    shared = tmp_path / "shared drive"
    shared.mkdir()
    made = app.gateway_call("library.create", {"selectedParentPath": str(shared),
                                               "name": "Team refs",
                                               "database": postgres_database})
    library_id = made["libraryId"]
    window.session.open_path(made["path"])
    app.pump(lambda: window.session.library_id == library_id, "the studio library shown")
    app.gateway_call("file.import", {"libraryId": library_id, "sourcePaths": [
        str(p) for p in make_images(tmp_path / "refs", 2)]})
    app.pump(lambda: window.pages.count() == 2, "the two assets in the grid")
    one, two = (window.pages.cell(i).key for i in (0, 1))  # type: ignore[union-attr]

    def tags(asset_id: str) -> list[str]:
        found = app.gateway_call("asset.get", {"libraryId": library_id,
                                               "assetIds": [asset_id]})
        return list(found["items"][0]["tags"])

    ben = LibraryHost(machine="bens-computer")
    try:
        ben.open(made["path"]).result(TIMEOUT)
        window.actions.add_tag([one], "anna")  # the window's change
        app.pump(lambda: tags(one) == ["anna"], "Anna's tag")
        call(ben, library_id, "asset.tag", {"assetIds": [two], "tags": ["ben"]}, BEN)
        window.toasts.clear()
        window.actions.undo()  # Edit → Undo (Ctrl+Z)
        app.pump(lambda: tags(one) == [], "Anna's tag undone")
        assert tags(two) == ["ben"]  # Ben's newer change stays
        app.pump(lambda: any(t.startswith("Undid:") for t in window.toasts.texts()),
                 "the undo's toast")
        said = next(t for t in window.toasts.texts() if t.startswith("Undid:"))
        assert "(by" not in said  # her own change
        window.browser.select([two])
        app.pump(lambda: "Changed by Ben" in str(window.inspector.audit.cget("text")),
                 "Ben's change named as his")
        app.shot(tmp_path, "studio-changed-by-ben")
    finally:
        ben.shutdown()
