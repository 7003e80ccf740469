"""Entry of the packaged console executable `serpent-tk-bridge`.

stdio-only MCP clients (Claude Desktop) start it: with no command it runs `mcp-bridge`,
which needs the real stdin/stdout a windowed executable lacks. Given a `serpent-tk` command
(`serpent-tk-bridge credential list`) it runs that instead, so Windows, whose windowed
`Serpent.exe` prints nowhere, has a console command line too.
"""

import multiprocessing
import sys

BRIDGE = "mcp-bridge"


def bridge_argv(argv: list[str]) -> list[str]:
    """`[]` and bridge options -> `mcp-bridge ...`; a known command -> unchanged."""
    from serpent_tk.cli import SUBCOMMANDS

    if argv and (argv[0] in SUBCOMMANDS or argv[0] == "--version"):
        return argv
    return [BRIDGE, *argv]


if __name__ == "__main__":
    multiprocessing.freeze_support()
    from serpent_tk.__main__ import main

    sys.exit(main(bridge_argv(sys.argv[1:])))
