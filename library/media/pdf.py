"""PDF documents and Illustrator files (PDF inside): page count, first page's size, a picture.

Thread-safe: PDFium is not, so every call into it holds one lock (a first page renders in
tens of milliseconds; previews of many PDFs simply take turns). pypdfium2 (PDFium in its
wheel) is imported on first use. The size is the first page's in points (1/72 inch). An
Illustrator file saved without its PDF part, or a damaged PDF, is `BadPdf`.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image

_lock = threading.Lock()
MAX_SCALE = 8.0  # a tiny page is not drawn at more than 8 px per point


class BadPdf(Exception):
    """Not a PDF PDFium can read (the message says why)."""


@dataclass(frozen=True)
class PdfFacts:
    pages: int
    width: int  # points, the first page as shown
    height: int


def probe(path: Path | str) -> PdfFacts:
    with _lock:
        document = _open(path)
        try:
            pages = len(document)
            if pages < 1:
                raise BadPdf("it has no pages")
            width, height = document.get_page_size(0)
        finally:
            document.close()
    return PdfFacts(pages, max(1, round(width)), max(1, round(height)))


def first_page(path: Path | str, box: int) -> Image.Image:
    """The first page scaled to fit a `box` square, on white."""
    with _lock:
        document = _open(path)
        try:
            if len(document) < 1:
                raise BadPdf("it has no pages")
            page = document[0]
            try:
                width, height = page.get_size()
                scale = min(MAX_SCALE, box / max(width, height, 1.0))
                bitmap = page.render(scale=scale, fill_color=(255, 255, 255, 255),
                                     may_draw_forms=True)
                picture: Image.Image = bitmap.to_pil().convert("RGB")
            finally:
                page.close()
        except BadPdf:
            raise
        except Exception as error:  # PDFium's PdfiumError on a damaged page
            raise BadPdf(f"PDFium cannot draw its first page ({error})") from None
        finally:
            document.close()
    return picture


def _open(path: Path | str) -> Any:
    import pypdfium2 as pdfium

    try:
        return pdfium.PdfDocument(str(path))
    except FileNotFoundError:
        raise
    except Exception as error:  # PdfiumError: not a PDF, damaged, encrypted
        raise BadPdf(f"PDFium cannot read it ({error})") from None
