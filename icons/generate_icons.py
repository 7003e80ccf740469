"""Draws the Serpent app icon and writes every size Tk and the installers need.

Run from the repo root: `python icons/generate_icons.py`. Output: serpent-<N>.png for
N in 16..1024, serpent.ico (Windows), serpent.icns (macOS). Drawn at 1024 px and
downsampled, so small sizes stay crisp.
"""

from __future__ import annotations

import math
from pathlib import Path

from PIL import Image, ImageDraw, ImageFilter

HERE = Path(__file__).resolve().parent
PNG_SIZES = (16, 24, 32, 48, 64, 128, 256, 512, 1024)
ICO_SIZES = [(16, 16), (24, 24), (32, 32), (48, 48), (64, 64), (128, 128), (256, 256)]
CANVAS = 1024


def gradient(size: int, top: tuple[int, int, int], bottom: tuple[int, int, int]) -> Image.Image:
    image = Image.new("RGB", (size, size))
    draw = ImageDraw.Draw(image)
    for y in range(size):
        t = y / (size - 1)
        colour = tuple(round(a + (b - a) * t) for a, b in zip(top, bottom, strict=True))
        draw.line([(0, y), (size, y)], fill=colour)
    return image


def serpent_path(steps: int = 900) -> list[tuple[float, float]]:
    """Points along an S: over the top of an upper circle, then around a lower one."""
    upper, lower, r = (512.0, 372.0), (512.0, 652.0), 140.0
    points = []
    for i in range(steps):
        t = i / (steps - 1)
        if t < 0.5:
            angle = math.radians(15 + (270 - 15) * (t / 0.5))
            cx, cy = upper
        else:
            angle = math.radians(90 - 255 * ((t - 0.5) / 0.5))
            cx, cy = lower
        points.append((cx + r * math.cos(angle), cy - r * math.sin(angle)))
    return points


def draw_icon() -> Image.Image:
    size = CANVAS
    background = gradient(size, (36, 178, 140), (20, 92, 120))
    mask = Image.new("L", (size, size), 0)
    ImageDraw.Draw(mask).rounded_rectangle([40, 40, size - 40, size - 40], radius=210, fill=255)
    icon = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    icon.paste(background, (0, 0), mask)

    body = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    pen = ImageDraw.Draw(body)
    cream = (252, 246, 228, 255)
    path = serpent_path()
    for index, (x, y) in enumerate(path):
        t = index / (len(path) - 1)
        radius = 66 - 46 * t ** 1.4  # thick at the head, tapering to the tail
        pen.ellipse([x - radius, y - radius, x + radius, y + radius], fill=cream)
    head_x, head_y = path[0]
    pen.ellipse([head_x - 92, head_y - 80, head_x + 92, head_y + 80], fill=cream)
    pen.ellipse([head_x + 10, head_y - 44, head_x + 46, head_y - 8], fill=(20, 92, 120, 255))

    shadow = body.split()[3].filter(ImageFilter.GaussianBlur(18))
    shade = Image.new("RGBA", (size, size), (8, 40, 52, 110))
    icon.paste(shade, (18, 24), shadow)
    icon.alpha_composite(body)
    return icon


def main() -> None:
    master = draw_icon()
    for n in PNG_SIZES:
        master.resize((n, n), Image.Resampling.LANCZOS).save(HERE / f"serpent-{n}.png")
    master.save(HERE / "serpent.ico", sizes=ICO_SIZES)
    master.save(HERE / "serpent.icns")


if __name__ == "__main__":
    main()
