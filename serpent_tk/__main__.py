"""Command-line entry (`serpent-tk`, `python -m serpent_tk`, the packaged executable).

`multiprocessing.freeze_support()` runs first so a frozen build can start worker processes.
Everything else is imported lazily: worker subprocesses re-import this module on spawn.
"""

from __future__ import annotations

import os
import sys

# Serpent uses no pydantic plugins. Without this, the first model each process builds scans
# every installed package's entry points for them (6 ms in the app's venv, more in bigger
# ones). Worker processes inherit it; a value set on purpose is kept.
NO_PYDANTIC_PLUGINS = ("PYDANTIC_DISABLE_PLUGINS", "__all__")


def main(argv: list[str] | None = None) -> int:
    os.environ.setdefault(*NO_PYDANTIC_PLUGINS)
    import multiprocessing

    multiprocessing.freeze_support()
    from serpent_tk.cli import run

    return run(sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    sys.exit(main())
