"""A planted near-duplicate set like the one issue 12 was measured on, and how to score a
duplicate finder against it.

Importable by tests and benchmarks (`from tests.library.planted import ...`). 30 originals
(gradients, shapes, strokes, a little noise), each with nine copies: half size, JPEG
quality 30, +12 % brightness, 3 % cropped off every edge, turned a quarter, turned half,
mirrored, and 15 % and 20 % of each side cut off (split unevenly between the two edges);
`EDITS` names the copies issue 30 added (turns, mirror, big crops); 24 flat images of 24 different
colours, which must never group; and decoys: a dominant colour with a few small shapes,
at seven sizes and orientations (near-flat pictures that differ). Deterministic.
"""

from __future__ import annotations

import io
import itertools
import random
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageDraw, ImageEnhance, ImageFilter

VARIANTS = ("half", "q30", "bright", "crop", "rot90", "rot180", "mirror", "crop15", "crop20")
EDITS = ("rot90", "rot180", "mirror", "crop15", "crop20")
FLAT_COLOURS = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 0), (0, 255, 255),
                (255, 0, 255), (128, 0, 0), (0, 128, 0), (0, 0, 128), (128, 128, 0),
                (0, 128, 128), (128, 0, 128), (255, 128, 0), (128, 255, 0), (0, 128, 255),
                (255, 0, 128), (64, 64, 64), (192, 192, 192), (255, 255, 255), (0, 0, 0),
                (200, 150, 100), (100, 150, 200), (150, 100, 200), (50, 200, 120)]
DECOY_SIZES = [(480, 360), (360, 480), (400, 400), (900, 225), (225, 900), (640, 360),
               (360, 640)]
DECOY_COLOURS = [(220, 40, 40), (40, 180, 60), (40, 80, 220), (240, 220, 50), (250, 140, 30),
                 (140, 60, 200), (30, 30, 30), (235, 235, 235)]


@dataclass(frozen=True)
class Planted:
    path: Path
    group: str  # files of one group are copies of one picture; every other file is alone
    variant: str  # original, half, q30, bright, crop, flat, decoy


def original(seed: int, size: tuple[int, int] = (480, 360)) -> Image.Image:
    rng = random.Random(seed)
    width, height = size
    mask = Image.linear_gradient("L").resize(size).rotate(rng.randrange(360))
    picture = Image.composite(Image.new("RGB", size, _colour(rng)),
                              Image.new("RGB", size, _colour(rng)), mask)
    draw = ImageDraw.Draw(picture)
    for _ in range(rng.randrange(6, 16)):
        x, y = rng.randrange(width), rng.randrange(height)
        w, h = rng.randrange(width // 10, width // 2), rng.randrange(height // 10, height // 2)
        kind = rng.random()
        if kind < 0.4:
            draw.ellipse([x, y, x + w, y + h], fill=_colour(rng))
        elif kind < 0.8:
            draw.rectangle([x, y, x + w, y + h], fill=_colour(rng))
        else:
            draw.line([x, y, x + w, y + h], fill=_colour(rng), width=rng.randrange(3, 20))
    picture = picture.filter(ImageFilter.GaussianBlur(1.5))
    noise = Image.frombytes("L", size, rng.randbytes(width * height)).convert("RGB")
    return Image.blend(picture, noise, 0.06)


def copies(picture: Image.Image, seed: int = 0) -> dict[str, Image.Image]:
    width, height = picture.size
    encoded = io.BytesIO()
    picture.save(encoded, "JPEG", quality=30)
    encoded.seek(0)
    dx, dy = round(width * 0.03), round(height * 0.03)
    made = {"half": picture.resize((width // 2, height // 2), Image.Resampling.LANCZOS),
            "q30": Image.open(encoded).convert("RGB"),
            "bright": ImageEnhance.Brightness(picture).enhance(1.12),
            "crop": picture.crop((dx, dy, width - dx, height - dy)),
            "rot90": picture.transpose(Image.Transpose.ROTATE_90),
            "rot180": picture.transpose(Image.Transpose.ROTATE_180),
            "mirror": picture.transpose(Image.Transpose.FLIP_LEFT_RIGHT)}
    rng = random.Random(500 + seed)
    for name, share in (("crop15", 0.15), ("crop20", 0.20)):
        cut_x, cut_y = round(width * share), round(height * share)
        left, top = rng.randrange(cut_x + 1), rng.randrange(cut_y + 1)
        made[name] = picture.crop((left, top, width - (cut_x - left), height - (cut_y - top)))
    return made


def decoy(index: int) -> Image.Image:
    rng = random.Random(1000 + index)
    size, colour = DECOY_SIZES[index % 7], DECOY_COLOURS[index % 8]
    picture = Image.new("RGB", size, colour)
    draw = ImageDraw.Draw(picture)
    for _ in range(rng.randrange(2, 6)):
        x, y = rng.randrange(size[0]), rng.randrange(size[1])
        w, h = rng.randrange(size[0] // 12, size[0] // 4), rng.randrange(size[1] // 12,
                                                                         size[1] // 4)
        draw.ellipse([x, y, x + w, y + h], fill=_colour(rng))
    return picture


def write(folder: Path, groups: int = 30, decoys: int = 56) -> list[Planted]:
    """The planted set as files in `folder` (originals PNG, copies JPEG quality 90)."""
    folder.mkdir(parents=True, exist_ok=True)
    planted: list[Planted] = []
    for number in range(groups):
        group = f"g{number:02d}"
        picture = original(number)
        picture.save(folder / f"{group}-original.png")
        planted.append(Planted(folder / f"{group}-original.png", group, "original"))
        for variant, image in copies(picture, number).items():
            path = folder / f"{group}-{variant}.jpg"
            image.save(path, quality=90)
            planted.append(Planted(path, group, variant))
    for number, colour in enumerate(FLAT_COLOURS):
        path = folder / f"flat-{number:02d}.png"
        Image.new("RGB", (400, 300), colour).save(path)
        planted.append(Planted(path, f"flat-{number}", "flat"))
    for number in range(decoys):
        path = folder / f"decoy-{number:02d}.png"
        decoy(number).save(path)
        planted.append(Planted(path, f"decoy-{number}", "decoy"))
    return planted


@dataclass(frozen=True)
class Score:
    recall: float  # planted copies found in the group of their original
    precision: float  # pairs inside found groups that really are copies of one picture
    found_by_variant: dict[str, int]
    groups_of_flats: int  # found groups holding two or more flat colours
    false_pairs: int


def score(planted: list[Planted], found_groups: list[list[Path]]) -> Score:
    group_of = {p.path: p.group for p in planted}
    where = {path: n for n, members in enumerate(found_groups) for path in members}
    found: dict[str, int] = {v: 0 for v in VARIANTS}
    originals = {p.group: p.path for p in planted if p.variant == "original"}
    for item in planted:
        if item.variant in VARIANTS:
            home = where.get(originals[item.group])
            found[item.variant] += int(home is not None and where.get(item.path) == home)
    true_pairs = false_pairs = 0
    for members in found_groups:
        for one, other in itertools.combinations(members, 2):
            if group_of[one] == group_of[other]:
                true_pairs += 1
            else:
                false_pairs += 1
    variants = {p.variant for p in planted}
    flats = sum(1 for members in found_groups if sum(
        1 for m in members if group_of[m].startswith("flat-")) >= 2)
    total = sum(1 for p in planted if p.variant in VARIANTS)
    return Score(recall=sum(found.values()) / total if total else 1.0,
                 precision=true_pairs / (true_pairs + false_pairs) if true_pairs + false_pairs
                 else 1.0, found_by_variant={v: found[v] for v in VARIANTS if v in variants},
                 groups_of_flats=flats, false_pairs=false_pairs)


def _colour(rng: random.Random) -> tuple[int, int, int]:
    return rng.randrange(256), rng.randrange(256), rng.randrange(256)
