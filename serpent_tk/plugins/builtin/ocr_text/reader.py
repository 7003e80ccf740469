"""Reading the text in one picture with RapidOCR (PP-OCR's Chinese and English models, run by
ONNX Runtime), offline.

Runs in the `ocr-text` plugin's host process, one picture at a time (the engine is built
once, on first use: ~2-4 s). The models are the ones inside the `rapidocr` wheel, named by
path: with a model path given, RapidOCR never looks for a download (its code downloads only
models it is not given), and nothing here opens a connection (a test runs it with sockets
refused). A picture is read at most `MAX_SIDE` px on its longest side (posters, screenshots
and scans keep legible text there; the detector resizes to about that anyway), upright
(EXIF orientation applied); lines below `MIN_SCORE` confidence are dropped.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any

MAX_SIDE = 1600
MIN_SCORE = 0.6
MAX_TEXT = 20_000  # characters kept per picture
MODELS = {"Det": "PP-OCRv6_det_small.onnx", "Rec": "PP-OCRv6_rec_small.onnx",
          "Cls": "ch_ppocr_mobile_v2.0_cls_mobile.onnx"}


class ReaderMissing(Exception):
    """RapidOCR or its models are not installed (the message says what is missing)."""


class TextReader:
    """One OCR engine. Thread-safe (one picture at a time)."""

    def __init__(self) -> None:
        self._engine: Any = None
        self._lock = threading.Lock()

    def read(self, path: Path | str) -> str:
        """The lines of text in the picture, top to bottom ("" when there is none)."""
        pixels = _pixels(path)
        with self._lock:
            engine = self._engine or self._build()
            result = engine(pixels)
        texts = getattr(result, "txts", None) or ()
        scores = getattr(result, "scores", None) or ()
        lines = [" ".join(str(text).split()) for text, score in zip(texts, scores, strict=False)
                 if float(score) >= MIN_SCORE and str(text).strip()]
        return "\n".join(lines)[:MAX_TEXT]

    def _build(self) -> Any:
        try:
            import rapidocr
            from rapidocr import RapidOCR
        except ImportError as error:
            raise ReaderMissing(f"RapidOCR is not installed ({error})") from None
        folder = Path(rapidocr.__file__).resolve().parent / "models"
        paths = {part: folder / name for part, name in MODELS.items()}
        missing = [str(p.name) for p in paths.values() if not p.is_file()]
        if missing:
            raise ReaderMissing(f"RapidOCR's models are missing: {', '.join(missing)}")
        logging.getLogger("RapidOCR").setLevel(logging.WARNING)
        params: dict[str, Any] = {"Global.log_level": "warning",
                                  "Global.model_root_dir": str(folder)}
        params.update({f"{part}.model_path": str(path) for part, path in paths.items()})
        self._engine = RapidOCR(params=params)
        return self._engine


def _pixels(path: Path | str) -> Any:
    """The picture in RGB (RapidOCR turns a Pillow picture into OpenCV's BGR itself),
    upright, at most MAX_SIDE px long."""
    from PIL import Image, ImageOps

    try:
        import pillow_heif

        pillow_heif.register_heif_opener()
    except ImportError:  # HEIC pictures are then not read
        pass
    with Image.open(path) as image:
        image.draft("RGB", (MAX_SIDE, MAX_SIDE))
        picture = ImageOps.exif_transpose(image).convert("RGB")
    picture.thumbnail((MAX_SIDE, MAX_SIDE), Image.Resampling.LANCZOS)
    return picture
