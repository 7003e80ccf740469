"""Background threads at a lower CPU priority than the work a person waits for.

Runs in the worker process. The preview pool's threads decode and scale pictures while an
import copies and hashes on the writer thread; at the same priority, two decoding threads
and the copying shared the two cores of the build VM evenly and the import answered 20-30 %
later (`bench_import.py`: 600 × 1-2 MP images, 2.98-3.32 s against 2.46-2.57 s with the
pool's threads lowered; with every preview ready, `bench_import_previews.py`, the same
within the noise). The pool's lowered lane then takes what CPU the import leaves; the
previews still queued once the copying ends are made by its normal-priority lane
(`previews`).

Linux keeps a nice value per thread (`setpriority` with the thread's id: see
setpriority(2), "a bug"); Windows has thread priorities. Elsewhere (macOS: a thread id is no
process id, and renicing one could hit another program) nothing changes.
"""

from __future__ import annotations

import logging
import os
import sys
import threading

log = logging.getLogger("library.worker.background")

NICE = 10  # Linux: 0 is normal, 19 the lowest
_WINDOWS_BELOW_NORMAL = -1  # THREAD_PRIORITY_BELOW_NORMAL


def lower_this_thread() -> bool:
    """Lower the calling thread's CPU priority; False where the system does not let us (the
    thread then runs as before)."""
    try:
        if sys.platform.startswith("linux"):
            current = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), max(current, NICE))
            return True
        if sys.platform == "win32":
            import ctypes
            from ctypes import wintypes

            kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)  # type: ignore[attr-defined]
            kernel32.GetCurrentThread.restype = wintypes.HANDLE  # a pseudo-handle: -2
            kernel32.SetThreadPriority.argtypes = [wintypes.HANDLE, ctypes.c_int]
            kernel32.SetThreadPriority.restype = wintypes.BOOL
            return bool(kernel32.SetThreadPriority(kernel32.GetCurrentThread(),
                                                   _WINDOWS_BELOW_NORMAL))
    except (OSError, AttributeError) as error:
        log.debug("could not lower a background thread's priority: %r", error)
    return False
