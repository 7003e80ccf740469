"""Opening with the system's app when the system has none (no xdg-open) says so, instead of
blaming a missing file."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from serpent_tk.ui.actions.asset_actions import open_with_system
from tests.ui.conftest import App, make_images

pytestmark = pytest.mark.gui


@pytest.mark.skipif(sys.platform != "linux", reason="xdg-open is the Linux opener")
def test_no_xdg_open_is_named_as_the_cause(app: App, tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    app.open_default()
    app.import_images(make_images(tmp_path / "refs", 1))
    window = app.window
    empty_bin = tmp_path / "bin"
    empty_bin.mkdir()
    monkeypatch.setenv("PATH", str(empty_bin))          # a desktop without xdg-utils
    window.actions.launch = open_with_system              # the real one, not a recorder
    key = window.pages.cell(0).key  # type: ignore[union-attr]
    window.asset_context.choose(window.current_target((key,)), "Open with system app")
    app.pump(lambda: any(t.startswith("Could not open it") for t in window.toasts.texts()),
             "the error toast")
    text = next(t for t in window.toasts.texts() if t.startswith("Could not open it"))
    assert "xdg-open" in text and "xdg-utils" in text
    assert "missing from the library" not in text
