"""What makes a folder a Serpent library: a name ending in `.serpent`, with the library's
database file in it.

Imported by both processes (names only: the worker lays the folder out with them, the main
process names new libraries and checks what it is about to delete).
"""

from __future__ import annotations

LIBRARY_SUFFIX = ".serpent"
DATABASE_NAME = "library.sqlite"
