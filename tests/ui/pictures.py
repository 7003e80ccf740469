"""Real-looking test material for the window's screenshots: varied pictures (gradients,
shapes, photo-like noise; portrait, landscape, square; PNG, JPEG, WebP, GIF) and a few
files that are not pictures (PDF, text, Blender). Deterministic (seeded)."""

from __future__ import annotations

import random
from pathlib import Path

from PIL import Image, ImageDraw, ImageFilter

NAMES = [
    "sunset-over-the-bay", "character_turnaround_v3", "forest spirit sketch",
    "neon alley reference", "portrait study 04", "mountain lake at dawn", "hand poses",
    "texture - rusty metal", "brutalist facade", "kitchen lighting ref", "koi pond",
    "desert dunes", "fabric folds", "storm clouds", "old harbour", "ui-mockup-dark",
    "colour script seq 12", "robot concept B", "moss close-up", "city at night",
    "winter cabin", "flower macro", "cathedral interior", "costume sheet",
    "sci-fi corridor", "autumn path", "rain on glass", "studio still life",
    "ocean cliffs", "market stalls", "Moodboard — forest spirits (final, approved by the "
    "client on 12 May) with alternates and notes for the lighting pass",
    "thumbnail pass 3", "horse anatomy", "street lamp", "glacier", "sketchbook page 88",
]


def _gradient(size: tuple[int, int], top: tuple[int, int, int],
              bottom: tuple[int, int, int]) -> Image.Image:
    width, height = size
    column = Image.new("RGB", (1, height))
    for y in range(height):
        t = y / max(1, height - 1)
        shade = tuple(round(a + (b - a) * t) for a, b in zip(top, bottom, strict=True))
        column.putpixel((0, y), shade)
    return column.resize(size)


def _picture(index: int, rng: random.Random) -> Image.Image:
    shape = index % 3
    size = [(960, 600), (600, 900), (720, 720)][shape]
    hue = rng.random()
    top = tuple(int(80 + 170 * abs(((hue + k / 3) % 1) - 0.5) * 2) for k in range(3))
    bottom = tuple(max(0, c - rng.randint(60, 140)) for c in top)
    style = index % 4
    image = _gradient(size, top, bottom)  # type: ignore[arg-type]
    draw = ImageDraw.Draw(image)
    w, h = size
    if style == 0:                               # landscape: sun, hills
        r = rng.randint(40, 90)
        cx, cy = rng.randint(r, w - r), rng.randint(r, h // 2)
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=(255, 236, 180))
        for layer in range(3):
            shade = tuple(max(0, c - 40 * (layer + 1)) for c in bottom)
            base = h * (0.55 + layer * 0.15)
            points = [(0, h)] + [(x, base - rng.randint(0, 80)) for x in range(0, w + 60, 60)]
            draw.polygon(points + [(w, h)], fill=shade)  # type: ignore[arg-type]
    elif style == 1:                             # shapes
        for _ in range(14):
            x, y = rng.randint(0, w), rng.randint(0, h)
            s = rng.randint(20, 160)
            colour = tuple(rng.randint(30, 255) for _ in range(3))
            if rng.random() < 0.5:
                draw.ellipse((x, y, x + s, y + s), fill=colour)  # type: ignore[arg-type]
            else:
                draw.rectangle((x, y, x + s, y + s * 0.6), fill=colour)  # type: ignore[arg-type]
    elif style == 2:                             # photo-like: blurred noise with a tint
        noise = Image.effect_noise((w // 4, h // 4), 60).convert("RGB")
        noise = noise.resize(size).filter(ImageFilter.GaussianBlur(6))
        image = Image.blend(image, noise, 0.35)
    else:                                        # a figure on a backdrop
        cx = w // 2 + rng.randint(-w // 6, w // 6)
        draw.ellipse((cx - 50, h * 0.25, cx + 50, h * 0.25 + 100), fill=(40, 34, 30))
        draw.rounded_rectangle((cx - 90, h * 0.25 + 110, cx + 90, h), 40, fill=(40, 34, 30))
    return image


def make_library_material(folder: Path, count: int = 36) -> list[Path]:
    """`count` pictures of varied shape, style and format, plus a PDF, a text note and a
    .blend file. Returns every path."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = random.Random(7)
    paths = []
    formats = [("png", "PNG"), ("jpg", "JPEG"), ("webp", "WEBP"), ("jpg", "JPEG")]
    for index in range(count):
        ext, fmt = formats[index % 4] if index % 11 != 10 else ("gif", "GIF")
        name = NAMES[index % len(NAMES)] + (f" {index // len(NAMES) + 1}"
                                             if index >= len(NAMES) else "")
        path = folder / f"{name}.{ext}"
        image = _picture(index, rng)
        image.save(path, fmt, **({"quality": 85} if fmt == "JPEG" else {}))
        paths.append(path)
    pdf = folder / "client brief.pdf"
    pdf.write_bytes(b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type"
                    b"/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n")
    note = folder / "ideas.txt"
    note.write_text("Warm light from the left, cool fill. Keep the silhouette readable.\n")
    blend = folder / "spirit_blockout.blend"
    blend.write_bytes(b"BLENDER-v300" + bytes(rng.randrange(256) for _ in range(2048)))
    return [*paths, pdf, note, blend]


TAG_WORDS = ["sky", "sunset", "forest", "portrait", "character", "lighting", "texture",
             "architecture", "interior", "water", "night", "warm", "cool", "moody",
             "reference", "anatomy", "costume", "vehicle", "nature", "urban"]


def many_tags(count: int = 200) -> list[str]:
    """`count` distinct, plausible tag names ("lighting/rim 3", "palette-teal")."""
    extras = ["rim", "soft", "hard", "teal", "amber", "wide", "close", "mood", "study",
              "final"]
    tags: list[str] = []
    for word in TAG_WORDS:
        for extra in extras:
            tags.append(f"{word}/{extra}")
    return tags[:count]
