"""sv-ttk at the display's scale: on a 192-dpi screen its chevrons, switches, check boxes,
slider and borders are drawn twice as big, like the text. Tk thread only (the files are made
once, off nothing slow: a few hundred small images).

sv-ttk draws every element from one sprite sheet (`spritesheet_light.png` cut by the
coordinates in `sprites_light.tcl`) and declares the elements' borders and paddings in
pixels (`light.tcl`). Tk scales fonts by `tk scaling` but not images or pixel sizes, so on a
HiDPI screen the text grows and the theme's pictures stay small. Here a copy of the theme is
made for the scale: each sprite resized smoothly with Pillow (any factor, 1.5 or 2 or 2.25,
not only Tk's integer `-zoom`), the sprite coordinates and the numbers after `-border`,
`-padding`, `-width` and `-height` multiplied; then that copy is sourced in place of the
original. The copy lives in the cache folder, one per sv-ttk version and factor.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import tempfile
import tkinter as tk
from pathlib import Path

log = logging.getLogger(__name__)

BASE_DPI = 96.0
MIN_FACTOR = 1.25          # below this the 1× theme is kept
_NUMBERS = re.compile(r"(-(?:border|padding|width|height))(\s+)(\{[0-9 ]+\}|[0-9]+)")
_SPRITE = re.compile(r"^(\s*)([\w-]+) (\d+) (\d+) (\d+) (\d+) \\$", re.MULTILINE)


def factor_for(root: tk.Misc) -> float:
    """The display's scale against 96 dpi, in quarter steps; 1.0 below `MIN_FACTOR`."""
    dpi = float(root.winfo_fpixels("1i"))
    factor = round(dpi / BASE_DPI * 4) / 4
    return factor if factor >= MIN_FACTOR else 1.0


def _scaled_number(match: re.Match[str], factor: float) -> str:
    option, space, value = match.groups()
    numbers = value.strip("{}").split()
    scaled = [str(round(int(n) * factor)) for n in numbers]
    text = " ".join(scaled)
    return f"{option}{space}{{{text}}}" if value.startswith("{") else f"{option}{space}{text}"


def scale_theme_script(text: str, factor: float) -> str:
    """light.tcl / dark.tcl with every pixel size of an element or style multiplied."""
    return _NUMBERS.sub(lambda m: _scaled_number(m, factor), text)


def _scaled_sprites(sprites: str, sheet: Path, target: Path, factor: float) -> str:
    """The sprite sheet redrawn at `factor` (each sprite on its own, so neighbours never
    bleed into each other) and its coordinates to match."""
    from PIL import Image

    entries: list[tuple[str, str, int, int, int, int]] = [
        (m.group(1), m.group(2), int(m.group(3)), int(m.group(4)), int(m.group(5)),
         int(m.group(6))) for m in _SPRITE.finditer(sprites)]
    with Image.open(sheet) as opened:
        source = opened.convert("RGBA")
    canvas = Image.new("RGBA", (round(source.width * factor), round(source.height * factor)))
    lines = []
    for indent, name, x, y, width, height in entries:
        left, top = round(x * factor), round(y * factor)
        new_w = max(1, round((x + width) * factor) - left)
        new_h = max(1, round((y + height) * factor) - top)
        sprite = source.crop((x, y, x + width, y + height)).resize(
            (new_w, new_h), Image.Resampling.LANCZOS)
        canvas.paste(sprite, (left, top))
        lines.append(f"{indent}{name} {left} {top} {new_w} {new_h} \\")
    canvas.save(target)
    return "set ::spriteinfo [list \\\n" + "\n".join(lines) + "\n]\n"  # i18n: not words


def build(source: Path, target: Path, factor: float) -> None:
    """A copy of the sv-ttk folder `source` drawn at `factor`, written to `target`."""
    work = Path(tempfile.mkdtemp(prefix=".sv-ttk-", dir=target.parent))
    try:
        shutil.copyfile(source / "sv.tcl", work / "sv.tcl")
        (work / "theme").mkdir()
        for mode in ("light", "dark"):
            theme = (source / "theme" / f"{mode}.tcl").read_text(encoding="utf-8")
            (work / "theme" / f"{mode}.tcl").write_text(scale_theme_script(theme, factor),
                                                        encoding="utf-8")
            sprites = (source / "theme" / f"sprites_{mode}.tcl").read_text(encoding="utf-8")
            scaled = _scaled_sprites(sprites, source / "theme" / f"spritesheet_{mode}.png",
                                     work / "theme" / f"spritesheet_{mode}.png", factor)
            (work / "theme" / f"sprites_{mode}.tcl").write_text(scaled, encoding="utf-8")
        try:
            os.replace(work, target)
        except OSError:              # made meanwhile by another Serpent: use that one
            shutil.rmtree(work, ignore_errors=True)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise


def load(root: tk.Tk, factor: float, cache: Path) -> bool:
    """Source sv-ttk drawn at `factor` into `root` (before `sv_ttk.set_theme`, which then
    finds it loaded). False, and the 1× theme stays, when anything goes wrong."""
    if factor == 1.0 or getattr(root, "_sv_ttk_loaded", False):
        return False
    try:
        from importlib.metadata import version

        import sv_ttk

        source = Path(sv_ttk.__file__).parent
        name = f"sv-ttk-{version('sv-ttk')}-x{factor:g}"
        target = cache / name
        if not (target / "sv.tcl").is_file():
            cache.mkdir(parents=True, exist_ok=True)
            build(source, target, factor)
        root.tk.call("source", str(target / "sv.tcl"))
    except Exception as error:   # cosmetics never stop the window
        log.warning("the theme stays at 1× on this %g× display: %s", factor, error)
        return False
    root._sv_ttk_loaded = True  # type: ignore[attr-defined]
    root._sv_ttk_scale = factor  # type: ignore[attr-defined]
    log.info("theme drawn at %g× for this display", factor)
    return True
