"""Analysing one asset: its facts (EXIF), preview thumbnail, palette and similarity signature.

Runs in the worker process, on the preview pool's threads (no lock held: it only reads the
stored file and writes a derived thumbnail). The image's header gives its facts as displayed
(`media.probe`: size with EXIF orientation applied, date taken, camera, lens), which
fill in what libraries made before Serpent kept them. The picture is decoded once, at
thumbnail size (`ANALYSIS_SIZE`), through the thumbnail store, so analysing also makes the
preview the grid asks for; palette and signature (`similarity`: perceptual hashes from
`phash`, mean CIELAB colour, detail) come from that small image. An asset that is not
a picture or a file `library.media` reads (SVG, video, sound, font, PDF: its facts from
its reader, its preview drawn by it; a palette for drawings, videos and documents, a
signature for drawings too) is `unsupported`; one whose file is missing or cannot be decoded
is `failed`, and says why in `problem` (damaged, truncated, too-large).
"""

from __future__ import annotations

import logging
import sqlite3
import warnings
from dataclasses import dataclass, field
from typing import Any

from PIL import Image

from library.worker.files import colours, media
from library.worker.files.palette import flattened, palette
from library.worker.files.phash import grey_pixels, hash_of, low_frequencies, phash, turned, windows
from library.worker.files.similarity import pack, to_signed
from library.worker.files.thumbstore import NoThumbnail, store_for
from library.worker.store.layout import Layout

log = logging.getLogger("library.worker.analysis")

ANALYSER = 3  # bump when what analysis computes changes: older results are redone
# 3: the hashes of turned, mirrored and cropped copies (`hashes`: `phash.turned`, `windows`)
COLOURED = ("image", "vector", "video", "document")  # kinds whose preview gives a palette
COMPARED = ("image", "vector")  # kinds with a similarity signature (duplicates, similar)
ANALYSIS_SIZE = 256
CENTRE = 0.94  # the second hash sees the central 94 % (3 % off every edge)


@dataclass(frozen=True)
class Analysis:
    asset_id: str
    status: str  # done | unsupported | failed
    phash: int | None = None  # signed 64-bit, as stored
    phash_centre: int | None = None
    hashes: bytes | None = None  # the turned and window hashes (`similarity.pack`)
    lab: tuple[float, float, float] | None = None
    detail: float | None = None
    palette: list[dict[str, Any]] = field(default_factory=list)
    facts: media.ImageFacts | None = None  # None: nothing read (not an image, or missing)
    problem: str | None = None


def analyse(layout: Layout, row: sqlite3.Row) -> Analysis:
    """`row` has id, sha256, ext, kind, width, height, missing."""
    asset_id = row["id"]
    kind, ext = row["kind"], row["ext"]
    if row["missing"]:
        return Analysis(asset_id, "failed")
    if not media.previewed(ext, kind):
        return Analysis(asset_id, "unsupported")
    source = layout.file_for(row["sha256"], ext)
    store = store_for(layout)
    facts: media.ImageFacts | None = None
    try:
        facts = media.probe(source, ext, kind)
        if facts.problem is not None and kind != "image":
            return Analysis(asset_id, "failed", facts=facts, problem=facts.problem)
        thumb = store.get(source, row["sha256"], ext, ANALYSIS_SIZE,
                          facts.width or row["width"], facts.height or row["height"])
        if kind not in COLOURED:  # a font's specimen, a sound's waveform: no palette
            return Analysis(asset_id, "done", facts=facts)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with Image.open(thumb.path) as image:
                image.load()
                picture = flattened(image)
        problem = "truncated" if store.partial(row["sha256"]) else None
        look = signature(picture) if kind in COMPARED else {}
        return Analysis(asset_id, "done", facts=facts, problem=problem,
                        palette=palette(picture), **look)
    except FileNotFoundError:
        return Analysis(asset_id, "failed")
    except NoThumbnail as problem:
        if problem.reason == "not-an-image":
            return Analysis(asset_id, "unsupported", facts=facts)
        return Analysis(asset_id, "failed", facts=facts, problem=problem.reason)
    except Exception as error:  # one odd file never stops the others
        log.warning("analysis of %s failed: %r", asset_id, error)
        return Analysis(asset_id, "failed")


def signature(picture: Image.Image) -> dict[str, Any]:
    """The similarity signature of an RGB picture (see `similarity`)."""
    import numpy as np  # imported when a picture is analysed (~60 ms of a worker's start)

    width, height = picture.size
    dx, dy = width * (1 - CENTRE) / 2, height * (1 - CENTRE) / 2
    centre = picture.crop((round(dx), round(dy), round(width - dx), round(height - dy)))
    small = np.asarray(picture.resize((64, 64), Image.Resampling.BOX), dtype=np.uint8)
    lab = colours.lab_of_pixels(small).reshape(-1, 3).mean(axis=0)
    grey = np.asarray(picture.convert("L").resize((32, 32), Image.Resampling.BOX),
                      dtype=np.float64)
    coefficients = low_frequencies(grey_pixels(picture))
    return {"phash": to_signed(hash_of(coefficients)),
            "phash_centre": to_signed(phash(centre)),
            "hashes": pack(turned(coefficients) + windows(picture)),
            "lab": (round(float(lab[0]), 3), round(float(lab[1]), 3), round(float(lab[2]), 3)),
            "detail": round(float(grey.std()), 3)}
