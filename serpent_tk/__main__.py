"""Command-line entry (`serpent-tk`, `python -m serpent_tk`, the packaged executable).

`multiprocessing.freeze_support()` runs first so a frozen build can start worker processes.
Everything else is imported lazily: worker subprocesses re-import this module on spawn.
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    import multiprocessing

    multiprocessing.freeze_support()
    from serpent_tk.cli import run

    return run(sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    sys.exit(main())
