"""What the window's start and a worker's start import: modules that cost tens of
milliseconds and serve only some commands load when those commands run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("numpy", "scipy", "portalocker")


def _loaded_after(code: str, prefixes: tuple[str, ...] = HEAVY) -> list[str]:
    """The modules named `prefixes` (or inside them) that a fresh process has after `code`."""
    probe = (f"import json, sys\n{code}\nprint(json.dumps(sorted(m for m in sys.modules "
             f"if any(m == p or m.startswith(p + '.') for p in {prefixes!r}))))")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                            timeout=120, cwd=ROOT, check=False)
    assert result.returncode == 0, result.stderr
    loaded: list[str] = json.loads(result.stdout.strip().splitlines()[-1])
    return loaded


def test_a_spare_worker_starts_without_numpy_or_portalocker() -> None:
    """numpy (~60 ms) loads when a picture is analysed or compared, portalocker
    (~35 ms) only where there is no fcntl: the spare worker the window's first library opens
    in is ready sooner, and takes less of the CPU the window starts on."""
    assert _loaded_after("from library.worker import process\nprocess.import_ahead()") == []


WINDOW = ("import serpent_tk.single_instance, serpent_tk.ui.shell.desktop\n"
          "from serpent_tk.app import _import_the_app\n_import_the_app()\n"
          "import serpent_tk.ui.shell.main_window")


def test_the_windows_modules_import_without_them_too() -> None:
    assert _loaded_after(WINDOW) == []


def test_the_duplicates_review_and_the_rule_editor_load_when_first_opened() -> None:
    """Their modules are not part of the window's start (the review window, the smart
    collection dialog and the rule rows it shares with the banner's description)."""
    assert _loaded_after(WINDOW, ("serpent_tk.ui.duplicates", "serpent_tk.ui.collections")) == []
