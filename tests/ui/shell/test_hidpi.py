"""At 192 dpi the theme's pictures (switches, chevrons, check boxes, the slider) are drawn
twice as big, like the text; at 96 dpi they stay as sv-ttk made them."""

from __future__ import annotations

import tkinter as tk
from pathlib import Path
from tkinter import ttk

import pytest

from serpent_tk.ui.shell import theme_scaling
from serpent_tk.ui.shell.theme import Theme
from tests.ui.conftest import _ROOTS

pytestmark = pytest.mark.gui


def sample(dpi: float) -> tuple[tk.Tk, Theme, dict[str, int]]:
    root = tk.Tk()
    root.tk.call("tk", "scaling", dpi / 72)
    theme = Theme(root, "light")
    frame = ttk.Frame(root, padding=theme.px(12))
    frame.pack()
    switch = ttk.Checkbutton(frame, text="Enable MCP service", style="Switch.TCheckbutton")
    switch.pack(anchor="w")
    combo = ttk.Combobox(frame, values=("Newest first",), width=14)
    combo.pack(anchor="w", pady=theme.px(6))
    scale = ttk.Scale(frame, length=theme.px(120))
    scale.pack(anchor="w")
    root.update()
    image = root.tk.eval("set ttk::theme::sv_light::I(switch-rest)")
    sizes = {"switch_image": int(root.tk.call("image", "width", image)),
             "switch_height": switch.winfo_reqheight(), "scale_height": scale.winfo_reqheight(),
             "font": theme.font("SunValleyBodyFont").metrics("linespace")}
    return root, theme, sizes


def test_theme_pictures_scale_with_the_display(display: str, tmp_path: Path) -> None:
    # `tk scaling` belongs to the display, which every Tk of this process shares: put back
    probe = tk.Tk()
    original = float(probe.tk.call("tk", "scaling"))
    probe.destroy()
    _ROOTS.append(probe)
    low_root, _, low = sample(96)
    high_root, high_theme, high = sample(192)
    try:
        assert theme_scaling.factor_for(high_root) == 2.0
        assert high_theme.image_scale == 2.0
        assert low["switch_image"] == 40 and high["switch_image"] == 80
        assert high["font"] >= 1.8 * low["font"]            # text scaled (it always did)
        assert high["switch_height"] >= 1.8 * low["switch_height"]
        assert high["scale_height"] >= 1.8 * low["scale_height"]
        import os
        import shutil

        from PIL import ImageGrab

        high_root.geometry("+0+0")
        high_root.update()
        x, y = high_root.winfo_rootx(), high_root.winfo_rooty()
        shot = tmp_path / "theme-at-192-dpi-light.png"
        ImageGrab.grab(bbox=(x, y, x + high_root.winfo_width(), y + high_root.winfo_height()),
                       xdisplay=os.environ["DISPLAY"]).save(shot)
        if os.environ.get("SERPENT_SHOTS_DIR"):
            shutil.copyfile(shot, Path(os.environ["SERPENT_SHOTS_DIR"]) / shot.name)
    finally:
        high_root.tk.call("tk", "scaling", original)
        for root in (low_root, high_root):
            root.destroy()
            _ROOTS.append(root)


def test_scaling_the_theme_script_multiplies_only_pixel_sizes() -> None:
    script = ("ttk::style element create Button.button image $I(x) -border 4 -sticky nsew\n"
              "ttk::style configure TButton -padding {8 2 8 3} -anchor center\n"
              "ttk::style element create Treeview.field image $I(card) -border 5 -width 0\n"
              "-rowheight [expr {[font metrics SunValleyBodyFont -linespace] + 3}]\n"
              "ttk::style configure ComboboxPopdownFrame -borderwidth 1 -relief solid\n")
    scaled = theme_scaling.scale_theme_script(script, 2.0)
    assert "-border 8 -sticky" in scaled and "-padding {16 4 16 6}" in scaled
    assert "-border 10 -width 0" in scaled
    assert "-linespace] + 3" in scaled and "-borderwidth 1" in scaled
