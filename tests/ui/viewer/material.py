"""Files for the viewer's tests: a big photo-like JPEG, a JPEG whose EXIF says "rotate 90°",
an animated GIF and WebP, a PNG, a PDF, a video, a .blend and a file that claims to be a JPEG
but is not one."""

from __future__ import annotations

import random
from pathlib import Path

from PIL import Image, ImageDraw, ImageFilter

from tests.library import mediafiles


def photo(size: tuple[int, int], seed: int = 3) -> Image.Image:
    """Something that looks like a landscape photo (gradient sky, hills, a sun, grain)."""
    rng = random.Random(seed)
    width, height = size
    sky = Image.linear_gradient("L").resize(size).convert("RGB")
    tint = Image.new("RGB", size, (rng.randrange(60, 200), 120, 220))
    image = Image.blend(sky, tint, 0.6)
    draw = ImageDraw.Draw(image)
    r = height // 9
    draw.ellipse((width * 0.7 - r, height * 0.25 - r, width * 0.7 + r, height * 0.25 + r),
                 fill=(255, 230, 170))
    for layer in range(3):
        base = height * (0.55 + layer * 0.14)
        points = [(0, height)] + [(x, base - rng.randrange(0, height // 8))
                                  for x in range(0, width + 200, 200)] + [(width, height)]
        draw.polygon(points, fill=(40 + layer * 30, 90 - layer * 20, 60 + layer * 10))
    grain = Image.effect_noise((width // 4, height // 4), 40).convert("RGB").resize(size)
    return Image.blend(image.filter(ImageFilter.GaussianBlur(1)), grain, 0.08)


def viewer_material(folder: Path) -> dict[str, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    made: dict[str, Path] = {}
    made["sunset.jpg"] = folder / "sunset.jpg"
    photo((3000, 2000)).save(made["sunset.jpg"], quality=88)

    # stored 2400 × 1600 with EXIF orientation 6: shown 1600 wide, 2400 tall, "TOP" up
    raw = photo((2400, 1600), seed=5)
    draw = ImageDraw.Draw(raw)
    draw.rectangle((2200, 700, 2399, 900), fill=(220, 30, 30))   # a red mark at the top
    exif = Image.Exif()
    exif[0x0112] = 6
    made["portrait.jpg"] = folder / "portrait.jpg"
    raw.save(made["portrait.jpg"], quality=88, exif=exif)

    frames = []
    for n in range(6):
        frame = Image.new("RGB", (240, 160), (30, 30, 60))
        ImageDraw.Draw(frame).ellipse((20 + n * 30, 50, 80 + n * 30, 110), fill=(250, 200, 40))
        frames.append(frame)
    made["sunset.gif"] = folder / "sunset.gif"
    frames[0].save(made["sunset.gif"], save_all=True, append_images=frames[1:], duration=60,
                   loop=0)

    made["spinner.webp"] = folder / "spinner.webp"
    frames[0].save(made["spinner.webp"], save_all=True, append_images=frames[1:4],
                   duration=80, loop=0)

    made["study.png"] = folder / "study.png"
    photo((900, 700), seed=9).save(made["study.png"])

    made["brief.pdf"] = mediafiles.make_pdf(folder / "brief.pdf", pages=2)
    made["clip.mp4"] = mediafiles.make_video(folder / "clip.mp4", (320, 180), seconds=4.0)
    made["scene.blend"] = folder / "scene.blend"
    made["scene.blend"].write_bytes(b"BLENDER-v300" + bytes(2000))

    made["broken.jpg"] = folder / "broken.jpg"
    good = made["sunset.jpg"].read_bytes()
    made["broken.jpg"].write_bytes(good[:400] + bytes(random.Random(1).randrange(256)
                                                      for _ in range(3000)))
    return made
