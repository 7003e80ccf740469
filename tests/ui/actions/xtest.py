"""A real pointer for tests under Xvfb: the XTEST extension (libXtst, through ctypes) moves it
and presses its buttons as a hand would, so drags that grab the pointer (a system drag)
can be tested. Thread-safe: each `Pointer` has its own X connection."""

from __future__ import annotations

import ctypes
import ctypes.util
import time


class Pointer:
    def __init__(self, display: str) -> None:
        x11 = ctypes.cdll.LoadLibrary(ctypes.util.find_library("X11") or "libX11.so.6")
        xtst = ctypes.cdll.LoadLibrary(ctypes.util.find_library("Xtst") or "libXtst.so.6")
        x11.XOpenDisplay.restype = ctypes.c_void_p
        x11.XOpenDisplay.argtypes = [ctypes.c_char_p]
        x11.XFlush.argtypes = [ctypes.c_void_p]
        x11.XCloseDisplay.argtypes = [ctypes.c_void_p]
        xtst.XTestFakeMotionEvent.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int,
                                              ctypes.c_int, ctypes.c_ulong]
        xtst.XTestFakeButtonEvent.argtypes = [ctypes.c_void_p, ctypes.c_uint, ctypes.c_int,
                                              ctypes.c_ulong]
        self._x11, self._xtst = x11, xtst
        self._display = x11.XOpenDisplay(display.encode())
        if not self._display:
            raise RuntimeError(f"cannot open X display {display}")
        self.x = self.y = 0

    def move(self, x: int, y: int) -> None:
        self._xtst.XTestFakeMotionEvent(self._display, -1, x, y, 0)
        self._x11.XFlush(self._display)
        self.x, self.y = x, y

    def glide(self, x: int, y: int, steps: int = 12, pause_s: float = 0.02) -> None:
        """Move there in `steps` motions, `pause_s` apart (a hand's pace: each motion is an
        event the application handles)."""
        x0, y0 = self.x, self.y
        for step in range(1, steps + 1):
            self.move(round(x0 + (x - x0) * step / steps), round(y0 + (y - y0) * step / steps))
            time.sleep(pause_s)

    def button(self, pressed: bool, number: int = 1) -> None:
        self._xtst.XTestFakeButtonEvent(self._display, number, 1 if pressed else 0, 0)
        self._x11.XFlush(self._display)

    def close(self) -> None:
        if self._display:
            self._x11.XCloseDisplay(self._display)
            self._display = None
