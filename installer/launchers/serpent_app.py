"""Entry of the packaged `Serpent` executable (windowed on Windows and macOS).

Takes exactly the command line of `serpent-tk`: no arguments opens the desktop app,
`serve`, `credential`, `mcp-config`, `settings`, ... run that command. Worker processes are
started from this same executable; `main()` runs `multiprocessing.freeze_support()` first.
"""

import sys

from serpent_tk.__main__ import main

if __name__ == "__main__":
    sys.exit(main())
