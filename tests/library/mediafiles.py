"""Test files of every kind a reader takes, made by the test itself: SVG, video, sound, font,
PDF, and posters with Chinese and English words (no binaries in the repository).

Importable by other test packages and by bench/ (`from tests.library.mediafiles import ...`).
Videos and sounds are encoded with PyAV, fonts built with fontTools, PDFs written by Pillow,
posters drawn by Pillow with a CJK font of the system (the test set-up installs one:
`serpent_tk.bootstrap`'s test packages; `cjk_font()` is None without it).
"""

from __future__ import annotations

import os
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

CJK_FONTS = (
    "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc",
    "/usr/share/fonts/truetype/arphic/uming.ttc",
)
TEST_FAMILY = "Serpent Test Sans"


def svg_text(width: str = "300", height: str = "200", view_box: str | None = None,
             extra: str = "") -> str:
    box = f' viewBox="{view_box}"' if view_box else ""
    return (f'<svg xmlns="http://www.w3.org/2000/svg" '
            f'xmlns:xlink="http://www.w3.org/1999/xlink" width="{width}" height="{height}"'
            f'{box}><rect x="0" y="0" width="100%" height="100%" fill="#ff8800"/>'
            f'<circle cx="30%" cy="50%" r="20%" fill="#1040c0"/>{extra}</svg>')


def make_svg(path: Path, width: str = "300", height: str = "200",
             view_box: str | None = None, extra: str = "") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(svg_text(width, height, view_box, extra), encoding="utf-8")
    return path


def make_video(path: Path, size: tuple[int, int] = (160, 90), seconds: float = 2.0,
               rate: int = 10, rotation: int = 0, seed: int = 0) -> Path:
    """A short video of a moving block on a colour that changes over time (H.264 in MP4,
    MPEG-4 part 2 for .avi); `rotation`: its display matrix (a phone's sideways video)."""
    import av
    import numpy as np

    path.parent.mkdir(parents=True, exist_ok=True)
    codec = "mpeg4" if path.suffix.lower() == ".avi" else "libx264"
    width, height = size
    with av.open(str(path), "w") as container:
        stream = container.add_stream(codec, rate=rate)
        stream.width, stream.height, stream.pix_fmt = width, height, "yuv420p"
        if rotation:
            stream.set_display_rotation(rotation)
        count = max(1, int(seconds * rate))
        for index in range(count):
            pixels = np.zeros((height, width, 3), np.uint8)
            pixels[:, :] = ((seed * 40 + index * 9) % 256, (60 + seed) % 256,
                            255 - (index * 9) % 256)
            left = (index * width // count) % max(1, width - width // 5)
            pixels[height // 4:height // 2, left:left + width // 5] = 255
            pixels[:height // 8, :width // 8] = (0, 255, 0)  # a corner marker: top left
            frame = av.VideoFrame.from_ndarray(pixels, format="rgb24")
            for packet in stream.encode(frame):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)
    return path


def make_sound(path: Path, seconds: float = 2.0, rate: int = 8000, seed: int = 0) -> Path:
    """A tone that grows louder (WAV: PCM; .flac, .mp3, .ogg by their codecs); `seed`
    changes its pitch."""
    import av
    import numpy as np

    path.parent.mkdir(parents=True, exist_ok=True)
    codec = {".wav": "pcm_s16le", ".flac": "flac", ".mp3": "libmp3lame",
             ".ogg": "libvorbis"}.get(path.suffix.lower(), "pcm_s16le")
    if codec in ("libmp3lame", "libvorbis"):
        rate = 44100
    times = np.arange(int(rate * seconds)) / rate
    signal = np.sin(2 * np.pi * (440 + 7 * seed) * times) * (times / seconds)
    with av.open(str(path), "w") as container:
        stream = container.add_stream(codec, rate=rate)
        stream.layout = "mono"
        fmt = stream.codec_context.codec.audio_formats[0].name
        step = 1152
        for start in range(0, len(signal), step):
            part = signal[start:start + step]
            if fmt.startswith("s16"):
                data = (part * 30000).astype(np.int16).reshape(1, -1)
                frame = av.AudioFrame.from_ndarray(data, format="s16", layout="mono")
            else:
                data = part.astype(np.float32).reshape(1, -1)
                frame = av.AudioFrame.from_ndarray(data, format="fltp", layout="mono")
            frame.sample_rate = rate
            frame.pts = start
            for packet in stream.encode(frame):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)
    return path


def make_font(path: Path, family: str = TEST_FAMILY, style: str = "Bold",
              cjk: bool = False) -> Path:
    """A small TrueType font whose glyphs are boxes: Latin letters, digits and punctuation,
    and (`cjk`) the Chinese, Japanese and Korean characters of the specimen too."""
    from fontTools.fontBuilder import FontBuilder
    from fontTools.pens.ttGlyphPen import TTGlyphPen

    from library.media.fonts import CJK_LINES, LATIN_LINES

    characters = sorted({ord(c) for line in LATIN_LINES for c in line if not c.isspace()}
                        | {ord(c) for c in "abcdefghijklmnopqrstuvwxyz"}
                        | ({ord(c) for line in CJK_LINES for c in line if not c.isspace()}
                           if cjk else set()))
    names = [".notdef", "space"] + [f"u{c:04X}" for c in characters]
    builder = FontBuilder(1000, isTTF=True)
    builder.setupGlyphOrder(names)
    builder.setupCharacterMap({32: "space", **{c: f"u{c:04X}" for c in characters}})
    glyphs = {}
    for name in names:
        pen = TTGlyphPen(None)
        if name != "space":
            pen.moveTo((80, 0))
            pen.lineTo((80, 700))
            pen.lineTo((520, 700))
            pen.lineTo((520, 0))
            pen.closePath()
        glyphs[name] = pen.glyph()
    builder.setupGlyf(glyphs)
    builder.setupHorizontalMetrics({name: (600, 80) for name in names})
    builder.setupHorizontalHeader(ascent=800, descent=-200)
    builder.setupNameTable({"familyName": family, "styleName": style})
    builder.setupOS2(sTypoAscender=800, usWinAscent=800, usWinDescent=200)
    builder.setupPost()
    path.parent.mkdir(parents=True, exist_ok=True)
    builder.save(str(path))
    return path


def make_pdf(path: Path, pages: int = 3, size: tuple[int, int] = (595, 842),
             seed: int = 0) -> Path:
    """A PDF of `pages` pages (A4 portrait by default: 595 × 842 points), written by Pillow;
    each page a different colour with its number's bars (`seed` moves them)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    images = []
    for number in range(pages):
        page = Image.new("RGB", size, (255, 255 - 40 * number % 256, 200))
        draw = ImageDraw.Draw(page)
        for bar in range(number + 1):
            draw.rectangle((40 + bar * 60, 40 + seed % 200, 80 + bar * 60, size[1] // 3),
                           fill=(20, 20, 90))
        images.append(page)
    images[0].save(path, "PDF", resolution=72.0, save_all=True, append_images=images[1:])
    return path


def cjk_font() -> Path | None:
    """A font on this system with Chinese characters, if any."""
    for candidate in CJK_FONTS:
        if os.path.exists(candidate):
            return Path(candidate)
    return None


def make_poster(path: Path, lines: list[str], size: tuple[int, int] = (1000, 700),
                background: tuple[int, int, int] = (245, 235, 210)) -> Path:
    """A poster with these lines of text (Chinese and English) in a CJK font."""
    font_path = cjk_font()
    if font_path is None:
        raise RuntimeError("no CJK font: install fonts-wqy-microhei or fonts-noto-cjk")
    image = Image.new("RGB", size, background)
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype(str(font_path), max(24, size[1] // 10), index=0)
    top = size[1] // 8
    ink = (30, 30, 60) if sum(background) > 384 else (250, 240, 220)  # dark on light, or not
    for line in lines:
        draw.text((size[0] // 12, top), line, font=font, fill=ink)
        top += int(font.size * 1.8)
    path.parent.mkdir(parents=True, exist_ok=True)
    image.save(path, quality=92)
    return path
