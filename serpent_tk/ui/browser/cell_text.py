"""The words of a grid cell, fitted to its width: a name cut at the end ("sunset-over-the-b…",
read from its start as the file browsers show it; the inspector has it whole), and a detail
line ("1920 × 1080 · ★★★★") whose rating stars are never cut. Tk thread only (it measures
with Tk fonts); results are cached, since the same cells are painted again and again while
scrolling."""

from __future__ import annotations

import tkinter.font as tkfont

from serpent_tk.ui.shell.theme import Theme

SEPARATOR = " · "
MAX_CACHED = 5000


class CellText:
    def __init__(self, theme: Theme) -> None:
        self.theme = theme
        self._cache: dict[tuple[str, str, int, int], str] = {}

    def clear(self) -> None:
        self._cache.clear()

    def fit(self, text: str, font_name: str, width: float) -> str:
        """`text` cut at the end, with an ellipsis, so it fits `width` pixels."""
        key = (text, font_name, int(width), -1)
        cached = self._cache.get(key)
        if cached is None:
            cached = end(text, self.theme.font(font_name), int(width))
            if len(self._cache) > MAX_CACHED:
                self._cache.clear()
            self._cache[key] = cached
        return cached

    def detail(self, text: str, stars: int, font_name: str, width: int) -> str:
        """`text` and `stars` rating stars, fitted to `width`: the text gives way (shortened
        in the middle, then dropped); the stars stay whole."""
        key = (text, font_name, width, stars)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        font: tkfont.Font = self.theme.font(font_name)
        suffix = "★" * stars
        compact = text.replace(" × ", "×")       # "3000×2000" before anything is cut
        if suffix and text:
            room = width - font.measure(SEPARATOR + suffix)
            fitting = next((t for t in (text, compact) if font.measure(t) <= room), None)
            # a size cut in the middle ("30…0") says nothing: then the stars alone
            result = fitting + SEPARATOR + suffix if fitting else suffix
        elif text:
            result = text if font.measure(text) <= width else middle(compact, font, width)
        else:
            result = middle(suffix, font, width)
        if len(self._cache) > MAX_CACHED:
            self._cache.clear()
        self._cache[key] = result
        return result


def middle(text: str, font: tkfont.Font, width: int) -> str:
    """`text` shortened with an ellipsis in the middle to fit `width` pixels of `font`."""
    if font.measure(text) <= width:
        return text
    low, high = 1, len(text)
    result = "…"
    while low <= high:
        keep = (low + high) // 2
        head = keep - keep // 3
        candidate = text[:head] + "…" + text[len(text) - (keep - head):]
        if font.measure(candidate) <= width:
            result, low = candidate, keep + 1
        else:
            high = keep - 1
    return result


def end(text: str, font: tkfont.Font, width: int) -> str:
    """`text` cut at the end with an ellipsis to fit `width` pixels of `font`."""
    if font.measure(text) <= width:
        return text
    low, high, result = 0, len(text), "…"
    while low <= high:
        keep = (low + high) // 2
        candidate = text[:keep].rstrip() + "…"
        if font.measure(candidate) <= width:
            result, low = candidate, keep + 1
        else:
            high = keep - 1
    return result
