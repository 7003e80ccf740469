"""Which font family the window's text is set in, per language and operating system: the
first installed family of a chain that has the language's glyphs. Tk thread only (it asks
Tk which families exist).

For 简体中文 the chain starts with the system's Simplified Chinese UI font (Microsoft YaHei
UI, PingFang SC, Noto Sans CJK SC), whose Latin letters are fine too, so a label never
mixes two fonts' metrics and Han characters take their Simplified shapes (not a Japanese
font's, which a plain fallback may pick). English keeps the system's Latin UI font; Chinese
names and tags in it are drawn by the platform's own fallback (fontconfig, Uniscribe, Core
Text), which the chains below also feed.
"""

from __future__ import annotations

import sys
import tkinter as tk
import tkinter.font as tkfont

from serpent_tk.ui.language import translate

# font families: i18n: not words
LATIN = ("Segoe UI Variable Text", "Segoe UI", "SF Pro Text", ".AppleSystemUIFont",
         "Cantarell", "Inter", "Noto Sans", "Ubuntu", "DejaVu Sans")
# font families: i18n: not words
CJK_SIMPLIFIED = {
    "win32": ("Microsoft YaHei UI", "Microsoft YaHei", "DengXian", "SimHei", "SimSun"),
    "darwin": ("PingFang SC", "Hiragino Sans GB", "Heiti SC", "STHeiti", "Songti SC"),
    "linux": ("Noto Sans CJK SC", "Source Han Sans SC", "Source Han Sans CN",
              "WenQuanYi Micro Hei", "WenQuanYi Zen Hei", "Droid Sans Fallback",
              "AR PL UMing CN", "Noto Sans CJK JP"),
}


def chain(language: str, platform: str = sys.platform) -> tuple[str, ...]:
    """The families to try for `language`, best first."""
    if language == translate.CHINESE:
        key = platform if platform in CJK_SIMPLIFIED else "linux"
        return CJK_SIMPLIFIED[key]
    return LATIN


def ui_family(root: tk.Misc, language: str | None = None) -> str:
    """The first installed family of the chain for `language` (the window's, by default);
    the other chain, then Tk's default font, when none is installed."""
    language = language or translate.current()
    families = set(tkfont.families(root))
    other = translate.ENGLISH if language == translate.CHINESE else translate.CHINESE
    for family in (*chain(language), *chain(other)):
        if family in families:
            return family
    return str(tkfont.nametofont("TkDefaultFont", root=root).actual("family"))


def has_cjk_font(root: tk.Misc) -> bool:
    """Is any family of this system's Simplified Chinese chain installed?"""
    families = set(tkfont.families(root))
    return any(family in families for family in chain(translate.CHINESE))
