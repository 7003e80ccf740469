"""The library's own names for kinds, shapes and file problems, in the window's words:
"image" → 图片, "landscape" → 横向, "damaged" → "Damaged file: …".

Thread-safe (pure functions). The library's values stay as they are on the wire; only what
the person reads is translated.
"""

from __future__ import annotations

from typing import Any

from serpent_tk.ui.language import translate
from serpent_tk.ui.language.translate import N_, _

KINDS = {"image": N_("Image"), "video": N_("Video"), "audio": N_("Audio"),
         "document": N_("Document"), "font": N_("Font"), "model": N_("3D model"),
         "archive": N_("Archive"), "other": N_("Other")}
SHAPES = {"portrait": N_("Portrait"), "landscape": N_("Landscape"), "square": N_("Square"),
          "panoramic": N_("Panoramic")}
PROBLEMS = {
    "damaged": N_("Damaged file: the picture cannot be decoded (the file is kept as it is)."),
    "truncated": N_("Incomplete file: the picture is cut off; the part that is there is "
                    "shown."),
    "too-large": N_("Too large to preview: the picture has more pixels than Serpent "
                    "decodes."),
}


def kind_word(kind: str) -> str:
    """"image" → "Image" (图片)."""
    return _(KINDS[kind]) if kind in KINDS else kind


def shape_word(shape: str) -> str:
    return _(SHAPES[shape]) if shape in SHAPES else shape


def problem_sentence(problem: dict[str, Any]) -> str:
    """What is wrong with a file (an asset's `problem`), in the window's language; in
    English the library's own message."""
    message = str(problem.get("message") or "")
    code = str(problem.get("code") or "")
    if message and (translate.current() == translate.ENGLISH or code not in PROBLEMS):
        return message
    return _(PROBLEMS.get(code, PROBLEMS["damaged"]))
