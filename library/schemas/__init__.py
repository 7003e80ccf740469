"""Pydantic input/output models of every library command: `<Command>In` / `<Command>Out`.

Imported by both processes. `library.catalogue` pairs each worker command with its models
here; the worker validates its arguments with them and the automation registry
(serpent_tk/automation) takes them from the catalogue, so the MCP tool schemas and the
worker agree by construction. Field names are camelCase on the wire (`assetIds`),
snake_case in Python. Unknown fields are refused (`extra="forbid"`).
"""

from library.schemas.analysers import *  # noqa: F403
from library.schemas.assets import *  # noqa: F403
from library.schemas.collections import *  # noqa: F403
from library.schemas.common import *  # noqa: F403
from library.schemas.folders import *  # noqa: F403
from library.schemas.history import *  # noqa: F403
from library.schemas.library import *  # noqa: F403
from library.schemas.linked_folders import *  # noqa: F403
from library.schemas.tags import *  # noqa: F403
from library.schemas.tasks import *  # noqa: F403
