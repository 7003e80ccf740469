"""The `ocr-text` analyser `read-text`: the words in each imported picture, read offline.

Runs in the plugin's host process, which lowers its own CPU priority when it starts reading
(the window, imports and previews go first; reading a picture costs about a second of CPU).
Serpent hands it the pictures of each import once its own analysis is done, and, when the
plugin starts or a library opens, every picture it has not read yet; it answers the text of
each (`reader.TextReader`: RapidOCR's Chinese and English models, nothing downloaded, nothing
sent), which Serpent keeps as the asset's found text: `asset.search` words and the
`found-text` rule find it, the inspector and `asset.get` show it.
"""

from __future__ import annotations

import os
import sys
import threading

from serpent_tk.plugins.api import Api, Plugin, PluginError, get_assets
from serpent_tk.plugins.builtin.ocr_text.reader import ReaderMissing, TextReader

plugin = Plugin()
VERSION = 1  # raise when reading gets better: every picture is read again
NICE = 10
_reader = TextReader()
_lowered = threading.local()


@plugin.analyser("read-text", kinds=("image",), version=VERSION)
def read_text(api: Api, asset_ids: list[str]) -> dict[str, str]:
    _lower_priority()
    found: dict[str, str] = {}
    for item in get_assets(api, asset_ids, missing_ok=True):  # deleted meanwhile: left out
        path = item.get("filePath")
        if not path or item.get("missing") or item.get("problem"):
            continue  # left out: Serpent counts it as not readable
        try:
            found[str(item["id"])] = _reader.read(path)
        except ReaderMissing as missing:
            raise PluginError(str(missing), code="INTERNAL") from None
        except (OSError, ValueError) as error:  # a picture Pillow cannot open after all
            api.log(f"could not read {item['id']}: {error}", level="info")
    return found


def _lower_priority() -> None:
    """The reading thread (and the engine's threads it starts) at nice 10 on Linux."""
    if getattr(_lowered, "done", False):
        return
    _lowered.done = True
    if sys.platform.startswith("linux"):
        try:
            current = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), max(current, NICE))
        except OSError:
            pass
