"""The set-up says how far pip got (one line per package with a count, from pip's output), and the
test command runs the suite in parallel."""

from __future__ import annotations

from serpent_tk import bootstrap_pip
from serpent_tk.bootstrap_pip import APP_LOCK, DEV_LOCK, Progress, pins

PIP_SAYS = """\
Looking in indexes: https://pypi.org/simple
Ignoring colorama: markers 'sys_platform == "win32"' don't match your environment
Ignoring numpy: markers 'python_full_version >= "3.12"' don't match your environment
Requirement already satisfied: wheel==0.48.0 in ./.venv/lib/python3.11/site-packages (from -r requirements/dev.txt (line 1101))
Collecting annotated-types==0.8.0 (from -r requirements/dev.txt (line 3))
  Downloading annotated_types-0.8.0-py3-none-any.whl (13 kB)
Processing /opt/pypi/files/typing_extensions-4.16.0-py3-none-any.whl (from -r requirements/dev.txt (line 919))
Collecting numpy==2.4.6 (from -r requirements/dev.txt (line 300))
  Downloading numpy-2.4.6-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl (16.8 MB)
Collecting pillow==13.0.0 (from -r requirements/dev.txt (line 400))
  Using cached pillow-13.0.0-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl (7.0 MB)
Installing collected packages: annotated-types, numpy, pillow
Successfully installed annotated-types-0.8.0 numpy-2.4.6 pillow-13.0.0
"""  # noqa: E501 - pip's own lines


def test_each_package_gets_a_numbered_line_and_big_downloads_say_their_size() -> None:
    said: list[str] = []
    progress = Progress(7, said.append)
    for line in PIP_SAYS.splitlines():
        progress.line(line)
    assert said == ["  [2/5] annotated-types 0.8.0",
                    "  [3/5] typing-extensions 4.16.0",
                    "  [4/5] numpy 2.4.6",
                    "  [4/5] numpy 2.4.6: downloading 16.8 MB",
                    "  [5/5] pillow 13.0.0",
                    "  unpacking 3 packages into the virtual environment"]


def test_the_locks_pin_packages_for_every_os() -> None:
    app, dev = dict(pins(APP_LOCK)), dict(pins(DEV_LOCK))
    assert {"pillow", "numpy", "mcp", "setuptools"} <= app.keys()
    assert {"pytest", "pyinstaller"} <= dev.keys() and not {"pytest", "pyinstaller"} & app.keys()
    assert "pywin32" in app, "Windows' own packages are pinned too (portalocker, mcp)"
    assert bootstrap_pip.USUALLY.keys() == {APP_LOCK, DEV_LOCK}


def test_the_test_command_runs_the_suite_in_parallel_unless_told_otherwise() -> None:
    from serpent_tk.bootstrap import PARALLEL, pytest_arguments

    assert pytest_arguments([]) == list(PARALLEL)
    assert pytest_arguments(["-k", "settings"]) == [*PARALLEL, "-k", "settings"]
    for told in (["-n", "0"], ["-n0"], ["--numprocesses=1"], ["--version"]):
        assert pytest_arguments(told) == told
