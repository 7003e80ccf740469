from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from serpent_tk.paths import app_dirs
from serpent_tk.single_instance import AlreadyRunning, SingleInstance
from tests.conftest import serpent_command

HOLDER = """
import sys, time
from pathlib import Path
from serpent_tk.paths import app_dirs
from serpent_tk.single_instance import SingleInstance
dirs = app_dirs().ensure()
seen = Path(sys.argv[1])
instance = SingleInstance(dirs.instance_lock, dirs.instance_info,
                          on_message=lambda m: seen.write_text(m["command"]))
instance.acquire()
print("ready", flush=True)
time.sleep(120)
"""


def start_holder(tmp_path: Path) -> tuple[subprocess.Popen[str], Path]:
    seen = tmp_path / "seen.txt"
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(seen)], stdout=subprocess.PIPE,
                              text=True)
    assert holder.stdout is not None
    assert holder.stdout.readline().strip() == "ready"
    holder.stdout.close()
    return holder, seen


def test_second_start_activates_the_running_instance(tmp_path: Path) -> None:
    holder, seen = start_holder(tmp_path)
    try:
        second = subprocess.run(serpent_command(), capture_output=True, text=True, timeout=60)
        assert second.returncode == 0
        assert "already running" in second.stderr
        assert seen.read_text() == "activate"
    finally:
        holder.kill()
        holder.wait()


def test_unresponsive_instance_gives_a_clear_message(tmp_path: Path) -> None:
    holder, _seen = start_holder(tmp_path)
    os.kill(holder.pid, signal.SIGSTOP)
    try:
        second = subprocess.run(serpent_command(), capture_output=True, text=True, timeout=60)
        assert second.returncode == 1
        assert "did not answer" in second.stderr
    finally:
        os.kill(holder.pid, signal.SIGCONT)
        holder.kill()
        holder.wait()


def test_crashed_instance_does_not_block_the_next_start(tmp_path: Path) -> None:
    holder, _seen = start_holder(tmp_path)
    holder.send_signal(signal.SIGKILL)
    holder.wait()
    dirs = app_dirs()
    assert dirs.instance_info.exists(), "a crash leaves its files behind"
    messages: list[dict[str, object]] = []
    instance = SingleInstance(dirs.instance_lock, dirs.instance_info, messages.append)
    instance.acquire()
    instance.release()


def test_in_process_second_acquire_is_refused_and_wrong_secret_ignored() -> None:
    dirs = app_dirs().ensure()
    messages: list[dict[str, object]] = []
    first = SingleInstance(dirs.instance_lock, dirs.instance_info, messages.append)
    first.acquire()
    try:
        with pytest.raises(AlreadyRunning) as raised:
            SingleInstance(dirs.instance_lock, dirs.instance_info, messages.append).acquire()
        assert raised.value.activated
        assert messages == [{"command": "activate", "secret": messages[0]["secret"]}]

        import json
        import socket
        port = json.loads(dirs.instance_info.read_text())["port"]
        with socket.create_connection(("127.0.0.1", port), timeout=3) as connection:
            connection.sendall(b'{"command": "activate", "secret": "guess"}\n')
            assert b'"ok": false' in connection.recv(100)
        time.sleep(0.1)
        assert len(messages) == 1
    finally:
        first.release()
    assert not dirs.instance_info.exists()
