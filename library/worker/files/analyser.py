"""Analysing one asset: its preview thumbnail made ahead, perceptual hash, colour palette.

Runs in the worker process, on the task runner's thread (no lock held: it only reads the
stored file and writes a derived thumbnail). The picture is decoded once, at thumbnail size
(`ANALYSIS_SIZE`), through the thumbnail store, so analysing also pre-generates the preview
the grid asks for; hash and palette are computed from that small image. An asset that is
not an image is `unsupported`; one whose file is missing or cannot be decoded is `failed`.
"""

from __future__ import annotations

import logging
import sqlite3
import warnings
from dataclasses import dataclass
from typing import Any

from PIL import Image

from library.worker.files import phash as phashes
from library.worker.files.palette import palette
from library.worker.files.thumbstore import NoThumbnail, store_for
from library.worker.store.layout import Layout

log = logging.getLogger("library.worker.analysis")

ANALYSER = 1  # bump when what analysis computes changes: older results are redone
ANALYSIS_SIZE = 256


@dataclass(frozen=True)
class Analysis:
    asset_id: str
    status: str  # done | unsupported | failed
    phash: int | None = None  # signed 64-bit, as stored
    palette: list[dict[str, Any]] | None = None


def analyse(layout: Layout, row: sqlite3.Row) -> Analysis:
    """`row` has id, sha256, ext, kind, width, height, missing."""
    asset_id = row["id"]
    if row["missing"]:
        return Analysis(asset_id, "failed")
    if row["kind"] != "image":
        return Analysis(asset_id, "unsupported")
    source = layout.file_for(row["sha256"], row["ext"])
    try:
        thumb = store_for(layout).get(source, row["sha256"], row["ext"], ANALYSIS_SIZE,
                                      row["width"], row["height"])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with Image.open(thumb.path) as image:
                image.load()
                return Analysis(asset_id, "done", phashes.to_signed(phashes.phash(image)),
                                palette(image))
    except FileNotFoundError:
        return Analysis(asset_id, "failed")
    except NoThumbnail as problem:
        return Analysis(asset_id, "unsupported" if problem.reason == "not-an-image"
                        else "failed")
    except Exception as error:  # one odd file never stops the others
        log.warning("analysis of %s failed: %r", asset_id, error)
        return Analysis(asset_id, "failed")
