"""The perceptual hash (pHash) of a picture with numpy alone: ImageHash's `phash`, bit for bit.

Runs in the worker process (pure functions, any thread). The picture's luminance at 32 x 32
(Pillow's LANCZOS, as ImageHash resizes), its 2-D DCT-II (unnormalised: scipy.fftpack's),
the 8 x 8 lowest frequencies, and one bit per coefficient: above their median or not, the
first coefficient the highest bit. Besides, for finding turned, mirrored and cropped copies
(`similarity`): the hashes of the picture's other orientations, from the same coefficients
(`turned`), and of 27 windows of it (`windows`).

Why not the DCT as one matrix product: in a picture with flat areas, a two-tone split or an
axis-aligned gradient, many coefficients are zero but for rounding, so the median and the
bits they get are decided by the last digits of the arithmetic. A matrix product rounds
differently from SciPy's pocketfft, and gave other hashes (up to 31 bits apart) for 565 of
5,124 test pictures. So the DCT here takes pocketfft's own steps (the DCT-II as a real
inverse FFT of the reordered input, numpy.fft being the same pocketfft, then its twiddle
factors, computed as pocketfft computes them): 0 of 5,124 differ, and the hashes stored by
libraries that ImageHash analysed stay comparable. tests/library/test_phash.py holds
ImageHash's own values for a corpus.
"""

from __future__ import annotations

import math
from functools import cache
from typing import TYPE_CHECKING

from PIL import Image

if TYPE_CHECKING:  # numpy is imported when a picture is hashed (~60 ms of a worker's start)
    import numpy as np
    from numpy.typing import NDArray

HASH_SIZE = 8  # 8 x 8 coefficients: 64 bits
SIDE = 32  # the picture is hashed at 32 x 32 (HASH_SIZE times ImageHash's highfreq_factor 4)


def grey_pixels(picture: Image.Image) -> NDArray[np.float64]:
    """The picture's luminance at SIDE x SIDE as ImageHash sees it (0-255, float64)."""
    import numpy as np

    small = picture.convert("L").resize((SIDE, SIDE), Image.Resampling.LANCZOS)
    return np.asarray(small, dtype=np.float64)


def low_frequencies(pixels: NDArray[np.float64]) -> NDArray[np.float64]:
    """The HASH_SIZE x HASH_SIZE lowest frequencies of the 2-D DCT-II of square `pixels`:
    along the columns first, then along the rows, as ImageHash applies scipy's."""
    columns = dct_ii(pixels)[:HASH_SIZE]
    return dct_ii(columns.T)[:HASH_SIZE].T


def hash_of(coefficients: NDArray[np.float64]) -> int:
    """One bit per coefficient, above the median or not, row by row, the first the highest:
    the unsigned 64-bit integer that ImageHash's hexadecimal form spells."""
    import numpy as np

    value = 0
    for bit in (coefficients > np.median(coefficients)).ravel():
        value = (value << 1) | int(bit)
    return value


def phash(picture: Image.Image) -> int:
    """The unsigned 64-bit pHash of a picture (any mode)."""
    return hash_of(low_frequencies(grey_pixels(picture)))


def turned(coefficients: NDArray[np.float64]) -> list[int]:
    """The hashes of the picture in its seven other orientations, from its own low
    frequencies: mirroring a picture left to right multiplies the DCT coefficients of odd
    horizontal frequency by -1, turning it upside down those of odd vertical frequency, and
    swapping its axes transposes them (a quarter turn is a swap and a mirror). In order:
    mirrored, upside down, turned half; then the four with the axes swapped (quarter turns
    either way, with and without a mirror). Equal to the pHash of the turned picture up to
    the last digits of the arithmetic (the resize to 32 x 32 is symmetric)."""
    import numpy as np

    odd = np.arange(HASH_SIZE) % 2 == 1
    across = np.where(odd[None, :], -1.0, 1.0)  # odd horizontal frequencies
    down = np.where(odd[:, None], -1.0, 1.0)  # odd vertical frequencies
    c, t = coefficients, coefficients.T
    return [hash_of(c * across), hash_of(c * down), hash_of(c * across * down),
            hash_of(t), hash_of(t * across), hash_of(t * down), hash_of(t * across * down)]


WINDOW_SIDES = (0.9, 0.85, 0.8)  # of the picture's width and height
WINDOW_PLACES = (0.0, 0.5, 1.0)  # where the window sits in the room left (left, middle...)


def windows(picture: Image.Image) -> list[int]:
    """The hashes of 27 windows of the picture: each side 90, 85 and 80 % long, at the nine
    places where the left/top room is 0, half or all of what the window leaves, so a copy
    with 10-20 % cut off lines up with one of them. Made for speed (a box filter to 32 x 32
    and the DCT as one matrix product for all 27), so they match a cropped copy's own pHash
    within a bit or two rather than bit for bit."""
    import numpy as np

    grey = picture.convert("L")
    width, height = grey.size
    stack = []
    for side in WINDOW_SIDES:
        w, h = width * side, height * side
        for across in WINDOW_PLACES:
            for down in WINDOW_PLACES:
                left, top = (width - w) * across, (height - h) * down
                stack.append(np.asarray(grey.resize((SIDE, SIDE), Image.Resampling.BOX,
                                                    box=(left, top, left + w, top + h)),
                                        dtype=np.float64))
    basis = _dct_basis()
    low = (basis @ np.stack(stack) @ basis.T).reshape(len(stack), HASH_SIZE * HASH_SIZE)
    bits = low > np.median(low, axis=1, keepdims=True)
    weights = np.left_shift(np.uint64(1), np.arange(63, -1, -1, dtype=np.uint64))
    return [int(value) for value in (bits.astype(np.uint64) * weights).sum(
        axis=1, dtype=np.uint64)]


@cache
def _dct_basis() -> NDArray[np.float64]:
    """The HASH_SIZE lowest rows of the unnormalised DCT-II of SIDE points."""
    import numpy as np

    k, n = np.arange(HASH_SIZE)[:, None], np.arange(SIDE)[None, :]
    basis: NDArray[np.float64] = 2 * np.cos(np.pi * k * (2 * n + 1) / (2 * SIDE))
    return basis


def dct_ii(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """scipy.fftpack.dct(x, axis=0) (type II, unnormalised) for an even number of rows, with
    pocketfft's steps and its rounding: y[k] = 2 sum x[n] cos(pi k (2n + 1) / 2N)."""
    import numpy as np

    size = x.shape[0]
    c = np.array(x, dtype=np.float64)
    c[0] *= 2
    c[size - 1] *= 2
    odd, even = c[1:size - 1:2].copy(), c[2:size:2].copy()
    c[2:size:2], c[1:size - 1:2] = even - odd, even + odd
    # c is now half-complex (r0, r1, i1, ..., r[N/2]): its real inverse FFT, unscaled
    spectrum = np.zeros((size // 2 + 1, *x.shape[1:]), dtype=np.complex128)
    spectrum.real[0], spectrum.real[size // 2] = c[0], c[size - 1]
    spectrum.real[1:size // 2], spectrum.imag[1:size // 2] = c[1:size - 1:2], c[2:size - 1:2]
    res = np.fft.irfft(spectrum, n=size, axis=0, norm="forward")
    twiddle = np.asarray(_twiddles(size))
    k = np.arange(1, size // 2)
    kc = size - k
    shape = (-1,) + (1,) * (x.ndim - 1)
    low, high = twiddle[k - 1].reshape(shape), twiddle[kc - 1].reshape(shape)
    t1 = low * res[kc] + high * res[k]
    t2 = low * res[k] - high * res[kc]
    out = res.copy()
    out[k], out[kc] = 0.5 * (t1 + t2), 0.5 * (t1 - t2)
    out[size // 2] = res[size // 2] * twiddle[size // 2 - 1]
    return out


@cache
def _twiddles(size: int) -> tuple[float, ...]:
    """cos(pi (i + 1) / 2N) for i < N, as pocketfft's `sincos_2pibyn(4N)` makes them: the
    product of two table entries, each from the nearest octant."""
    n = 4 * size
    angle = math.pi / (4 * n)
    shift = 1
    while (1 << shift) * (1 << shift) < (n + 2) // 2:
        shift += 1
    mask = (1 << shift) - 1
    fine = [(1.0, 0.0)] + [_root(i, n, angle) for i in range(1, mask + 1)]
    coarse = [(1.0, 0.0)] + [_root(i * (mask + 1), n, angle)
                             for i in range(1, ((n + 2) // 2 + mask) // (mask + 1))]
    twiddles = []
    for index in range(1, size + 1):
        (r1, i1), (r2, i2) = fine[index & mask], coarse[index >> shift]
        twiddles.append(r1 * r2 - i1 * i2)
    return tuple(twiddles)


def _root(x: int, n: int, angle: float) -> tuple[float, float]:
    """(cos, sin) of 2 pi x / n from the octant where the argument is smallest."""
    x <<= 3
    if x < 4 * n:
        if x < 2 * n:
            if x < n:
                return math.cos(x * angle), math.sin(x * angle)
            return math.sin((2 * n - x) * angle), math.cos((2 * n - x) * angle)
        x -= 2 * n
        if x < n:
            return -math.sin(x * angle), math.cos(x * angle)
        return -math.cos((2 * n - x) * angle), math.sin((2 * n - x) * angle)
    x = 8 * n - x
    if x < 2 * n:
        if x < n:
            return math.cos(x * angle), -math.sin(x * angle)
        return math.sin((2 * n - x) * angle), -math.cos((2 * n - x) * angle)
    x -= 2 * n
    if x < n:
        return -math.sin(x * angle), -math.cos(x * angle)
    return -math.cos((2 * n - x) * angle), -math.sin((2 * n - x) * angle)
