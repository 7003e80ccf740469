"""Which grid cells are selected: ordered keys, an anchor for Shift ranges, a focus cell.

Tk thread only (plain data, no widgets). Keys are asset ids, so a selection survives the
grid reloading its pages after a library change.
"""

from __future__ import annotations

from collections.abc import Iterable


class Selection:
    def __init__(self) -> None:
        self._keys: dict[str, None] = {}
        self.anchor_key: str | None = None
        self.focus_key: str | None = None

    def __contains__(self, key: object) -> bool:
        return key in self._keys

    def __len__(self) -> int:
        return len(self._keys)

    def __bool__(self) -> bool:
        return bool(self._keys)

    def keys(self) -> list[str]:
        return list(self._keys)

    def set(self, keys: Iterable[str], focus: str | None = None,
            anchor: str | None = None) -> None:
        self._keys = dict.fromkeys(keys)
        self.focus_key = focus if focus is not None else next(iter(self._keys), None)
        self.anchor_key = anchor if anchor is not None else self.focus_key

    def toggle(self, key: str) -> None:
        if key in self._keys:
            del self._keys[key]
        else:
            self._keys[key] = None
        self.focus_key = key
        self.anchor_key = key

    def clear(self) -> None:
        self._keys = {}
        self.anchor_key = None
        self.focus_key = None

    def discard(self, keys: Iterable[str]) -> None:
        for key in keys:
            self._keys.pop(key, None)
        if self.focus_key not in self._keys:
            self.focus_key = next(iter(self._keys), None)
        if self.anchor_key not in self._keys:
            self.anchor_key = self.focus_key
