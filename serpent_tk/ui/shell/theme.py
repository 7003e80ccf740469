"""Looks: sv-ttk light/dark, fonts in points, canvas colours, HiDPI-aware sizes.

Tk thread only, except `enable_windows_dpi_awareness()` and `system_prefers_dark()`, which
run before the root exists. Sizes in this app are given in points and converted with
`Theme.px()`, so a 200 % display gets twice the pixels and nothing is clipped.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import tkinter as tk
import tkinter.font as tkfont
from collections.abc import Callable
from dataclasses import dataclass
from tkinter import ttk
from typing import Literal

from serpent_tk.ui.language import font_families

log = logging.getLogger(__name__)

ThemeName = Literal["system", "light", "dark"]


def theme_name(text: str) -> ThemeName:
    """A theme's name as the settings keep it, from a chooser's text ("system" for any
    other)."""
    return "light" if text == "light" else "dark" if text == "dark" else "system"


@dataclass(frozen=True)
class Palette:
    """Colours for what ttk does not draw: the thumbnail canvas, toasts, badges."""

    background: str
    surface: str          # cards, grid cells at rest
    surface_hover: str
    placeholder: str      # an empty thumbnail slot
    text: str
    text_muted: str
    accent: str
    selection: str        # fill behind a selected cell
    selection_outline: str
    focus_outline: str
    danger: str
    danger_text: str
    warning: str
    success: str
    toast_bg: str
    toast_text: str
    star_on: str
    star_off: str


LIGHT = Palette(
    background="#fafafa", surface="#f0f0f0", surface_hover="#e6e6e6", placeholder="#e2e2e2",
    text="#1c1c1c", text_muted="#6b6b6b", accent="#005fb8", selection="#cfe0fa",
    selection_outline="#2f60d8", focus_outline="#8aa9e6", danger="#c42b1c",
    danger_text="#ffffff", warning="#9d5d00", success="#0f7b0f", toast_bg="#2b2b2b",
    toast_text="#fafafa", star_on="#e8a317", star_off="#c8c8c8")

DARK = Palette(
    background="#1c1c1c", surface="#262626", surface_hover="#303030", placeholder="#333333",
    text="#fafafa", text_muted="#a0a0a0", accent="#57c8ff", selection="#1f3a6b",
    selection_outline="#4f83f0", focus_outline="#5978b8", danger="#ff6b5e",
    danger_text="#1c1c1c", warning="#fce100", success="#6ccb5f", toast_bg="#f3f3f3",
    toast_text="#1c1c1c", star_on="#f5c518", star_off="#4a4a4a")

# sv-ttk declares its fonts in pixels; we redeclare them in points (Tk: positive = points)
# so text follows the display's scaling. (name, size in points, bold)
_SV_FONTS = (
    ("SunValleyCaptionFont", 9, False),
    ("SunValleyBodyFont", 10, False),
    ("SunValleyBodyStrongFont", 10, True),
    ("SunValleyBodyLargeFont", 13, False),
    ("SunValleySubtitleFont", 15, True),
    ("SunValleyTitleFont", 20, True),
    ("SunValleyTitleLargeFont", 28, True),
    ("SunValleyDisplayFont", 44, True),
)
# Our own named fonts, used by every view module.
FONT_CAPTION = "SunValleyCaptionFont"
FONT_BODY = "SunValleyBodyFont"
FONT_STRONG = "SunValleyBodyStrongFont"
FONT_LARGE = "SunValleyBodyLargeFont"
FONT_SUBTITLE = "SunValleySubtitleFont"
FONT_TITLE = "SunValleyTitleFont"


def enable_windows_dpi_awareness() -> None:
    """Ask Windows for real pixels (per-monitor DPI) before `Tk()`; a no-op elsewhere."""
    if sys.platform != "win32":
        return
    try:
        import ctypes

        try:
            ctypes.windll.shcore.SetProcessDpiAwareness(2)  # type: ignore[attr-defined,unused-ignore]
        except (AttributeError, OSError):
            ctypes.windll.user32.SetProcessDPIAware()  # type: ignore[attr-defined,unused-ignore]
    except Exception as error:  # never stop the app for cosmetics
        log.info("DPI awareness not set: %s", error)


def preload(root: tk.Tk) -> None:
    """Source sv-ttk (both of its themes, at this display's scale) into a new root, so that
    `Theme` later only switches to one. Tcl runs without holding Python's lock: the app
    does this while its modules are still being imported on another thread."""
    try:
        Theme._scale_theme_images(root)
        import sv_ttk

        sv_ttk.get_theme(root)  # loads the theme files once per root
    except Exception as error:  # cosmetics never stop the window: `Theme` says it again
        log.info("theme not preloaded: %s", error)


def system_prefers_dark() -> bool:
    """Best effort: does the desktop use a dark colour scheme? Bounded, never raises."""
    try:
        if sys.platform == "win32":
            import winreg

            key = winreg.OpenKey(winreg.HKEY_CURRENT_USER,
                                 r"Software\Microsoft\Windows\CurrentVersion\Themes\Personalize")
            value, _ = winreg.QueryValueEx(key, "AppsUseLightTheme")
            return value == 0
        if sys.platform == "darwin":
            result = subprocess.run(["defaults", "read", "-g", "AppleInterfaceStyle"],
                                    capture_output=True, text=True, timeout=1)
            return "dark" in result.stdout.lower()
        if "dark" in os.environ.get("GTK_THEME", "").lower():
            return True
        result = subprocess.run(
            ["gsettings", "get", "org.gnome.desktop.interface", "color-scheme"],
            capture_output=True, text=True, timeout=0.5)
        return "dark" in result.stdout.lower()
    except Exception:
        return False


class Theme:
    """The current look. Tk thread only. `changed` listeners run after a light/dark switch."""

    def __init__(self, root: tk.Tk, name: ThemeName = "system") -> None:
        self.root = root
        self.requested: ThemeName = name
        self.mode: Literal["light", "dark"] = "light"
        self.palette = LIGHT
        self._listeners: list[Callable[[], object]] = []
        self._points_to_px = root.winfo_fpixels("1p")
        self.image_scale = self._scale_theme_images(root)
        # sv-ttk answers every <<ThemeChanged>> (sent after *any* style change) with
        # tk_setPalette, which stamps the plain text colour onto every existing ttk label and
        # so hides the colours of our label styles. Bound on "all", this runs after it.
        root.bind_class("all", "<<ThemeChanged>>", self._after_palette, add="+")
        self.apply(name)

    @staticmethod
    def _scale_theme_images(root: tk.Tk) -> float:
        """On a HiDPI display, load sv-ttk drawn at its scale (see `theme_scaling`)."""
        from serpent_tk.paths import app_dirs
        from serpent_tk.ui.shell import theme_scaling

        if isinstance(root, tk.Tk):
            theme_scaling.load(root, theme_scaling.factor_for(root), app_dirs().cache / "themes")
        return float(getattr(root, "_sv_ttk_scale", 1.0))

    # sizes -------------------------------------------------------------------------------
    def px(self, points: float) -> int:
        """Points to whole pixels on this display."""
        return max(1, round(points * self._points_to_px))

    def scaled(self, logical: float) -> int:
        """A size stored in settings as pixels of a 96-dpi display, in pixels here."""
        return self.px(logical * 0.75)

    def unscaled(self, pixels: int) -> int:
        """The inverse of `scaled`, for saving a size back to the settings."""
        return round(pixels / (self._points_to_px * 0.75))

    def font(self, name: str) -> tkfont.Font:
        return tkfont.nametofont(name, root=self.root)

    # colours -----------------------------------------------------------------------------
    def apply(self, name: ThemeName) -> None:
        import sv_ttk

        self.requested = name
        mode: Literal["light", "dark"]
        mode = ("dark" if system_prefers_dark() else "light") if name == "system" else name
        try:
            sv_ttk.set_theme(mode, self.root)
        except (tk.TclError, TypeError) as error:  # a non-standard root: plain ttk still works
            log.warning("sv-ttk theme unavailable: %s", error)
        self.mode = mode
        self.palette = DARK if mode == "dark" else LIGHT
        self._configure_fonts()
        self._configure_styles()
        for listener in list(self._listeners):
            try:
                listener()
            except tk.TclError:     # its widgets are gone (a closed window): forget it
                self._listeners.remove(listener)

    def _after_palette(self, event: tk.Event) -> None:
        if str(event.widget) != ".":
            return
        stack: list[tk.Misc] = [self.root]
        while stack:
            widget = stack.pop()
            stack.extend(widget.winfo_children())
            if isinstance(widget, ttk.Label) and str(widget.cget("style")):
                widget.configure(foreground="")   # let the style's colour show again

    def on_change(self, listener: Callable[[], object]) -> None:
        self._listeners.append(listener)

    def forget_listeners(self) -> None:
        """The window this theme served is gone (rebuilt): its widgets listen no more."""
        self._listeners.clear()

    def _configure_fonts(self) -> None:
        family = font_families.ui_family(self.root)      # the window's language's glyphs
        for name, size, bold in _SV_FONTS:
            weight: Literal["normal", "bold"] = "bold" if bold else "normal"
            try:
                tkfont.nametofont(name, root=self.root).configure(
                    family=family, size=size, weight=weight)
            except tk.TclError:
                tkfont.Font(root=self.root, name=name, family=family, size=size, weight=weight)
        for name in ("TkDefaultFont", "TkTextFont", "TkMenuFont", "TkHeadingFont"):
            tkfont.nametofont(name, root=self.root).configure(family=family, size=10)
        tkfont.nametofont("TkFixedFont", root=self.root).configure(size=10)

    def _configure_styles(self) -> None:
        style = ttk.Style(self.root)
        body = self.font(FONT_BODY)
        p = self.palette
        style.configure("Treeview", rowheight=body.metrics("linespace") + self.px(7))
        style.configure("Muted.TLabel", foreground=p.text_muted)
        style.configure("Caption.TLabel", foreground=p.text_muted, font=FONT_CAPTION)
        style.configure("Strong.TLabel", font=FONT_STRONG)
        style.configure("Title.TLabel", font=FONT_SUBTITLE)
        style.configure("Large.TLabel", font=FONT_LARGE)
        style.configure("Danger.TLabel", foreground=p.danger)
        style.configure("Success.TLabel", foreground=p.success)
        style.configure("Warning.TLabel", foreground=p.warning)
        style.configure("Sidebar.Treeview", rowheight=body.metrics("linespace") + self.px(8))
        self.root.configure(background=p.background)
        self.root.option_add("*Text.font", FONT_BODY)
        self.root.option_add("*Listbox.font", FONT_BODY)
