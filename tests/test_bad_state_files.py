"""Settings and credential paths that are not files, and files no parser survives (nested
200,000 deep, far too big): `serve`, `credential` and `settings` run as real subprocesses with
a deadline, say what is wrong in a sentence and never hang or dump a traceback (a FIFO is never
opened for reading; a damaged settings file is kept aside as `settings.json.corrupt-<time>`)."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import threading
from pathlib import Path

from serpent_tk.paths import app_dirs
from tests.conftest import serpent_command
from tests.waiting import Deadline

DEADLINE_S = 90.0
DEEP = "[" * 200_000 + "]" * 200_000


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    """`serpent-tk ARGS`, which must finish within the deadline (a hang fails the test)."""
    return subprocess.run(serpent_command(*args), capture_output=True, text=True,
                          timeout=DEADLINE_S, stdin=subprocess.DEVNULL)


def no_traceback(*outputs: str) -> None:
    for output in outputs:
        assert "Traceback" not in output, output


def serve_until_listening() -> tuple[int, str]:
    """Start `serve --port 0`, wait until it listens, stop it; its exit code and stderr."""
    lines: queue.Queue[str] = queue.Queue()
    errors: list[str] = []
    with subprocess.Popen(serpent_command("serve", "--port", "0"), text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          stdin=subprocess.DEVNULL) as process:
        readers = [threading.Thread(target=lambda: [lines.put(x) for x in process.stdout or ()],
                                    daemon=True),
                   threading.Thread(target=lambda: errors.extend(process.stderr or ()),
                                    daemon=True)]
        for reader in readers:
            reader.start()
        try:
            deadline = Deadline(DEADLINE_S)
            listening = ""
            while "MCP server listening on" not in listening:
                remaining = deadline.remaining()
                assert remaining > 0 and process.poll() is None, "".join(errors)
                try:
                    listening = lines.get(timeout=min(remaining, 1.0))
                except queue.Empty:
                    continue
        finally:
            process.send_signal(signal.SIGTERM)
            code = process.wait(DEADLINE_S)
            for reader in readers:
                reader.join(5)
    return code, "".join(errors)


def test_serve_starts_with_a_pipe_for_settings_and_a_folder_for_credentials() -> None:
    dirs = app_dirs().ensure()
    os.mkfifo(dirs.settings_file)
    dirs.credentials_file.mkdir()
    code, told = serve_until_listening()
    assert code == 0, told
    assert "settings.json is a named pipe, not a settings file" in told
    assert "credentials.json is a folder, not a file" in told
    no_traceback(told)
    assert dirs.settings_file.is_fifo() and dirs.credentials_file.is_dir()  # left alone


def test_credential_commands_explain_a_folder_or_pipe_and_exit_1() -> None:
    dirs = app_dirs().ensure()
    dirs.credentials_file.mkdir()
    listed = run_cli("credential", "list")
    assert listed.returncode == 1
    assert "credentials.json is a folder, not a file" in listed.stderr
    created = run_cli("credential", "create", "Cursor")
    assert created.returncode == 1 and "is a folder" in created.stderr
    no_traceback(listed.stdout, listed.stderr, created.stdout, created.stderr)
    dirs.credentials_file.rmdir()
    os.mkfifo(dirs.credentials_file)
    listed = run_cli("credential", "list")  # a FIFO: never opened blocking
    assert listed.returncode == 1 and "is a named pipe" in listed.stderr
    no_traceback(listed.stdout, listed.stderr)
    dirs.credentials_file.unlink()
    lock = dirs.credentials_file.with_name("credentials.json.lock")
    lock.unlink(missing_ok=True)
    os.mkfifo(lock)
    created = run_cli("credential", "create", "Cursor")  # appending to a FIFO would block
    assert created.returncode == 1 and "named pipe" in created.stderr
    no_traceback(created.stdout, created.stderr)


def test_settings_export_never_hangs_on_a_pipe(tmp_path: Path) -> None:
    dirs = app_dirs().ensure()
    os.mkfifo(dirs.settings_file)
    exported = run_cli("settings", "export", str(tmp_path / "out.json"))
    assert exported.returncode == 0, exported.stderr
    assert (tmp_path / "out.json").is_file()
    dirs.credentials_file.mkdir()
    secret = run_cli("settings", "export", str(tmp_path / "secret.json"),
                     "--include-credentials")
    assert secret.returncode == 1 and "is a folder" in secret.stderr
    os.mkfifo(tmp_path / "incoming.json")
    imported = run_cli("settings", "import", str(tmp_path / "incoming.json"))
    assert imported.returncode == 1 and "named pipe" in imported.stderr
    no_traceback(exported.stderr, secret.stderr, imported.stderr)


def test_serve_starts_with_settings_and_credentials_nested_200000_deep() -> None:
    dirs = app_dirs().ensure()
    dirs.settings_file.write_text(DEEP)
    dirs.credentials_file.write_text(DEEP)
    code, told = serve_until_listening()
    assert code == 0, told
    no_traceback(told)
    assert "Your settings file could not be read and was kept as settings.json.corrupt-" in told
    kept = list(dirs.config.glob("settings.json.corrupt-*"))
    assert len(kept) == 1 and kept[0].read_text() == DEEP  # kept aside whole, not lost
    assert "credentials.json is damaged (it is nested too deeply)" in told
    assert dirs.credentials_file.read_text() == DEEP  # kept until a credential is created


def test_cli_reports_deep_and_huge_state_files_without_a_traceback(tmp_path: Path) -> None:
    dirs = app_dirs().ensure()
    dirs.credentials_file.write_text(DEEP)
    listed = run_cli("credential", "list")
    assert listed.returncode == 1, listed.stderr
    assert "is damaged (it is nested too deeply)" in listed.stderr
    created = run_cli("credential", "create", "Cursor")  # the damaged file is kept aside
    assert created.returncode == 0, created.stderr
    assert [p.read_text() for p in dirs.config.glob("credentials.json.corrupt-*")] == [DEEP]
    incoming = tmp_path / "incoming.json"
    incoming.write_text(DEEP)
    imported = run_cli("settings", "import", str(incoming))
    assert imported.returncode == 1
    assert "incoming.json is damaged or not a Serpent settings file" in imported.stderr
    dirs.settings_file.write_bytes(b" " * (17 * 1024 * 1024))  # beyond any settings file
    exported = run_cli("settings", "export", str(tmp_path / "out.json"))
    assert exported.returncode == 0, exported.stderr
    assert len(list(dirs.config.glob("settings.json.corrupt-*"))) == 1
    for answer in (listed, created, imported, exported):
        no_traceback(answer.stdout, answer.stderr)
