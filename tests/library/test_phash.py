"""The numpy pHash gives ImageHash's hashes bit for bit, so the hashes stored by libraries
that ImageHash analysed stay comparable with the ones analysed now.

`REFERENCE` holds what `imagehash.phash` (4.3.2, SciPy 1.17) gave for the corpus below, computed
once with ImageHash installed. The corpus is 32 x 32 grey pixels made with integer arithmetic
only (ImageHash resizes a 32 x 32 picture to itself, so its hash is the DCT's and the median's
alone): noise, shapes, and the pictures where rounding decides (flat, two-tone, gradients,
stripes, checkers, symmetric shapes: many coefficients zero but for rounding). `PICTURES`
checks the whole path (Pillow's grey conversion and LANCZOS resize) on planted originals and
their resized, brightened and cropped copies, which must also keep their duplicate distances.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from PIL import Image, ImageEnhance

from library.worker.files.phash import dct_ii, grey_pixels, hash_of, low_frequencies, phash
from tests.library.planted import original

SIDE = 32


def _shapes(rng: random.Random) -> np.ndarray:
    y, x = np.mgrid[0:SIDE, 0:SIDE]
    pixels = np.full((SIDE, SIDE), rng.randrange(256), dtype=np.int64)
    for _ in range(rng.randrange(3, 9)):
        cx, cy, a, b = (rng.randrange(SIDE), rng.randrange(SIDE), rng.randrange(2, 14),
                        rng.randrange(2, 14))
        inside = ((x - cx) ** 2 * b * b + (y - cy) ** 2 * a * a <= a * a * b * b
                  if rng.random() < 0.5 else (abs(x - cx) <= a) & (abs(y - cy) <= b))
        pixels[inside] = rng.randrange(256)
    noise = np.frombuffer(rng.randbytes(SIDE * SIDE), dtype=np.uint8).reshape(SIDE, SIDE)
    return np.clip(pixels + noise.astype(np.int64) % 9 - 4, 0, 255)


def corpus() -> list[tuple[str, np.ndarray]]:
    """(name, 32 x 32 integer pixels 0-255), always the same."""
    y, x = np.mgrid[0:SIDE, 0:SIDE]
    items: list[tuple[str, np.ndarray]] = []
    for seed in range(30):
        rng = random.Random(seed)
        noise = np.frombuffer(rng.randbytes(SIDE * SIDE), dtype=np.uint8)
        items.append((f"noise-{seed}", noise.reshape(SIDE, SIDE).astype(np.int64)))
        items.append((f"shapes-{seed}", _shapes(rng)))
    for value in (0, 1, 37, 128, 200, 255):
        items.append((f"flat-{value}", np.full((SIDE, SIDE), value)))
    for at in (1, 8, 16, 23):
        items.append((f"split-columns-{at}", np.where(x < at, 30, 220)))
        items.append((f"split-rows-{at}", np.where(y < at, 220, 30)))
    items += [("gradient-x", x * 8), ("gradient-y", y * 8), ("gradient-xy", (x + y) * 4),
              ("gradient-anti", (x + SIDE - 1 - y) * 4), ("ramp-x", 255 - x * 7),
              ("triangle", np.where(x > y, 200, 40)), ("cross", np.where((x == 15) | (y == 16),
                                                                         0, 255))]
    for period in (1, 2, 4, 8):
        items.append((f"stripes-columns-{period}", np.where((x // period) % 2, 0, 255)))
        items.append((f"stripes-rows-{period}", np.where((y // period) % 2, 255, 10)))
        items.append((f"checker-{period}", np.where((x // period + y // period) % 2, 0, 255)))
    centre = (2 * x - 31) ** 2 + (2 * y - 31) ** 2
    for radius in (8, 16, 24):
        items.append((f"disc-{radius}", np.where(centre <= 4 * radius * radius, 0, 255)))
    items.append(("rings", (centre // 64 % 2) * 255))
    return [(name, pixels.astype(np.uint8)) for name, pixels in items]


def pictures() -> list[tuple[str, Image.Image]]:
    items: list[tuple[str, Image.Image]] = []
    for seed in range(6):
        picture = original(seed)
        width, height = picture.size
        dx, dy = round(width * 0.03), round(height * 0.03)
        items += [(f"g{seed}-original", picture),
                  (f"g{seed}-half", picture.resize((width // 2, height // 2),
                                                   Image.Resampling.LANCZOS)),
                  (f"g{seed}-bright", ImageEnhance.Brightness(picture).enhance(1.12)),
                  (f"g{seed}-crop", picture.crop((dx, dy, width - dx, height - dy))),
                  (f"g{seed}-grey", picture.convert("L"))]
    return items


REFERENCE: dict[str, str] = {
    "noise-0": "f36e0a997308caf8",
    "shapes-0": "ad8d5a5a2b5272a5",
    "noise-1": "8aa1239d49dbcb59",
    "shapes-1": "a2056a355b5d7a5a",
    "noise-2": "82b85ed4c0c6ef1e",
    "shapes-2": "a87cd4b8daca6507",
    "noise-3": "d31590611ff426dd",
    "shapes-3": "9db57860e5654c3c",
    "noise-4": "851039cf6592deae",
    "shapes-4": "b5984a26b6cc9dd8",
    "noise-5": "a8d1c9a6b2da8ae5",
    "shapes-5": "add2e9961a16d2e1",
    "noise-6": "f455cc45dc4fe118",
    "shapes-6": "cdcd3036864cb9f8",
    "noise-7": "e593793710da3629",
    "shapes-7": "8f17f36d9e14c121",
    "noise-8": "81071121dcf1fef6",
    "shapes-8": "ab286e6dd0dca136",
    "noise-9": "99a554c304fde1e6",
    "shapes-9": "c39b387867e67023",
    "noise-10": "e99e90e9273b9149",
    "shapes-10": "a1251f5a5fe27650",
    "noise-11": "de80a4f41212eef7",
    "shapes-11": "9c4e616932b293cf",
    "noise-12": "e2a8b947c4bc943b",
    "shapes-12": "bcc9c2c38f968bc1",
    "noise-13": "a9b219bc2a3c5e95",
    "shapes-13": "de61619e936fe021",
    "noise-14": "b14ba09795de183b",
    "shapes-14": "d0f9870fde612370",
    "noise-15": "e1532a7131c5a93f",
    "shapes-15": "e39918e3e76e9118",
    "noise-16": "d92528f6f0ed390a",
    "shapes-16": "f8d3c3273c3c0bc2",
    "noise-17": "bcaaaa196d4352e3",
    "shapes-17": "b659d25aa99269a5",
    "noise-18": "9a2c00bbf87b495e",
    "shapes-18": "8770f09ef80dfe02",
    "noise-19": "ac37df4c0c26253e",
    "shapes-19": "c76a98990b59aad5",
    "noise-20": "b729d507da27c8a4",
    "shapes-20": "b74cc1b266db66a0",
    "noise-21": "b715286a3f680b4f",
    "shapes-21": "8d7f7881ff00e21c",
    "noise-22": "9ca07e3172ae9e1a",
    "shapes-22": "93ecc03dc43bc43b",
    "noise-23": "df04d2d3d0cc7ea0",
    "shapes-23": "cb596ca4d352ad2c",
    "noise-24": "8d978506122f6daf",
    "shapes-24": "8f8b56565631a9a9",
    "noise-25": "820e338de9b4a6bb",
    "shapes-25": "af6663099acb9869",
    "noise-26": "83eb1cb532607f68",
    "shapes-26": "d818a6b6584de7b2",
    "noise-27": "9e12e3270642dfda",
    "shapes-27": "eaa8ac37b4b4b845",
    "noise-28": "ceabed129e8134e8",
    "shapes-28": "8d3535d2cca53473",
    "noise-29": "ef106439fd15709a",
    "shapes-29": "a6249cdde6ccc0e6",
    "flat-0": "0000000000000000",
    "flat-1": "8000000000000000",
    "flat-37": "8000000000000000",
    "flat-128": "8000000000000000",
    "flat-200": "8000000000000000",
    "flat-255": "8000000000000000",
    "split-columns-1": "8000000000000000",
    "split-rows-1": "8080808080808080",
    "split-columns-8": "8700000000000000",
    "split-rows-8": "8080808000000000",
    "split-columns-16": "9100000000000000",
    "split-rows-16": "8080000000800000",
    "split-columns-23": "a500000000000000",
    "split-rows-23": "8080008080008000",
    "gradient-x": "8000000000000000",
    "gradient-y": "8000000000000000",
    "gradient-xy": "8000000000000000",
    "gradient-anti": "8080008000800080",
    "ramp-x": "d500000000000000",
    "triangle": "808140a050b974fa",
    "cross": "b3a3b30c4cb3b34c",
    "stripes-columns-1": "d500000000000000",
    "stripes-rows-1": "8000000000000000",
    "checker-1": "8055005500550055",
    "stripes-columns-2": "d500000000000000",
    "stripes-rows-2": "8000000000000000",
    "checker-2": "8055005500550055",
    "stripes-columns-4": "d500000000000000",
    "stripes-rows-4": "8000000000000000",
    "checker-4": "8055005500550055",
    "stripes-columns-8": "d000000000000000",
    "stripes-rows-8": "8000000000800080",
    "checker-8": "8050005000050005",
    "disc-8": "a0008a0028002200",
    "disc-16": "aa00a800a0008200",
    "disc-24": "0000000000000000",
    "rings": "8000000000000000",
}
PICTURES: dict[str, str] = {
    "g0-original": "db946ae873c38741",
    "g0-half": "db946ae873c38741",
    "g0-bright": "db946ae873c38741",
    "g0-crop": "9fb46a6879c1c1e1",
    "g0-grey": "db946ae873c38741",
    "g1-original": "ff0b94d4eaaa42e0",
    "g1-half": "ff0b94d4eaaa42e0",
    "g1-bright": "ff0b94d4eaa642e0",
    "g1-crop": "ff0b94d4ea9e40e0",
    "g1-grey": "ff0b94d4eaaa42e0",
    "g2-original": "a7dab13354c9a44b",
    "g2-half": "a7dab13354c9a44b",
    "g2-bright": "a7dab13354c9a44b",
    "g2-crop": "a7dab1335488b54b",
    "g2-grey": "a7dab13354c9a44b",
    "g3-original": "945aed2ab5617269",
    "g3-half": "945aed2ab5617269",
    "g3-bright": "905bed2ab5617269",
    "g3-crop": "945be91aa731f621",
    "g3-grey": "945aed2ab5617269",
    "g4-original": "e2e0c13f3d3d1a43",
    "g4-half": "e2e0c13f3d3d1a43",
    "g4-bright": "e0e0c33f3d3d1a43",
    "g4-crop": "e0e0e2ae3d3d57c0",
    "g4-grey": "e2e0c13f3d3d1a43",
    "g5-original": "b8c7b18c72c23fc1",
    "g5-half": "b8c7b18c72c23fc1",
    "g5-bright": "b8c7b18c72c23fc1",
    "g5-crop": "bcc2b90d70c63fc4",
    "g5-grey": "b8c7b18c72c23fc1",
}


def test_the_hashes_are_imagehash_s_bit_for_bit() -> None:
    made = {name: f"{hash_of(low_frequencies(pixels.astype(np.float64))):016x}"
            for name, pixels in corpus()}
    assert made.keys() == REFERENCE.keys()
    assert {n: h for n, h in made.items() if h != REFERENCE[n]} == {}


def test_whole_pictures_hash_as_imagehash_hashed_them() -> None:
    """Through Pillow too: any mode, any size, the copies the duplicates finder pairs."""
    every = dict(pictures())
    made = {name: f"{phash(picture):016x}" for name, picture in every.items()}
    assert {n: h for n, h in made.items() if h != PICTURES[n]} == {}, (
        "Pillow's grey conversion or LANCZOS resize changed: hashes stored before no longer "
        "match the ones made now (bump analyser.ANALYSER so libraries are analysed again)")
    for seed in range(6):  # a resized copy stays a near-exact duplicate of its original
        first, half = phash(every[f"g{seed}-original"]), phash(every[f"g{seed}-half"])
        assert (first ^ half).bit_count() <= 2


def test_the_corpus_tells_pocketfft_s_rounding_from_a_textbook_dct() -> None:
    """The test above can fail: the DCT as one matrix product (the same sums, rounded
    differently) gives other hashes for the pictures where rounding decides."""
    n = np.arange(SIDE)
    matrix = 2 * np.cos(np.pi * n[:8, None] * (2 * n[None, :] + 1) / (2 * SIDE))
    textbook = {name: f"{hash_of(matrix @ pixels.astype(np.float64) @ matrix.T):016x}"
                for name, pixels in corpus()}
    wrong = sorted(n for n, h in textbook.items() if h != REFERENCE[n])
    assert len(wrong) >= 30, wrong  # 34 of the 111
    assert not any(n.startswith(("noise", "shapes")) for n in wrong)  # only rounding's


@pytest.mark.parametrize("rows", [2, 8, 32, 64])
def test_the_dct_is_the_dct_ii(rows: int) -> None:
    values = np.random.default_rng(rows).uniform(-100, 100, (rows, 3))
    k, n = np.arange(rows)[:, None], np.arange(rows)[None, :]
    expected = 2 * np.cos(np.pi * k * (2 * n + 1) / (2 * rows)) @ values
    assert np.allclose(dct_ii(values), expected, rtol=0, atol=1e-9)


def test_grey_pixels_are_the_32_by_32_luminance() -> None:
    picture = Image.new("RGBA", (300, 200), (250, 10, 10, 128))
    pixels = grey_pixels(picture)
    assert pixels.shape == (SIDE, SIDE) and pixels.dtype == np.float64
    assert np.all(pixels == round(250 * 0.299 + 10 * 0.587 + 10 * 0.114))
