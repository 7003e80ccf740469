"""Keeps one test PostgreSQL server: initdb, start, and stop it when its stdin closes.

Runs as its own process (`python tests/postgres/keeper.py FOLDER [--durable]`), started by
`tests.postgres` with a pipe as stdin. It makes the cluster in FOLDER (as the `postgres`
user when run as root: PostgreSQL refuses to run as root), starts the server on a free
loopback port with its socket in FOLDER, prints `READY <port> <bindir>` (or `FAILED
<why>`), and waits. A line `stop` on stdin stops the server (an outage, for the tests that
need one; it answers `STOPPED`), a line `start` starts it again on the same port (`READY`).
When its stdin closes (the test session ended, or the pytest process died, even by
`kill -9`) it stops the server (fast shutdown, then immediate, then SIGKILL) and removes
FOLDER: no test run leaves a PostgreSQL behind. The tests' server skips fsync for speed;
`--durable` (the benchmarks) keeps PostgreSQL's defaults. Standard library only.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

USER = "serpent"  # the cluster's superuser, trust authentication (loopback and socket only)


def binaries() -> Path | None:
    for candidate in sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True):
        if (candidate / "initdb").exists() and (candidate / "postgres").exists():
            return candidate
    found = shutil.which("pg_config")
    if found:
        bindir = subprocess.run([found, "--bindir"], capture_output=True, text=True).stdout
        if bindir.strip() and (Path(bindir.strip()) / "initdb").exists():
            return Path(bindir.strip())
    return None


def _as_postgres() -> dict[str, str]:
    """Popen's `user`/`group` when run as root (initdb and postgres refuse root)."""
    if os.geteuid() != 0:
        return {}
    return {"user": "postgres", "group": "postgres"}


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _accepting(folder: Path, port: int) -> bool:
    return (folder / f".s.PGSQL.{port}").exists() and (folder / "data" / "postmaster.pid").exists()


def start(folder: Path, bindir: Path, port: int | None = None, durable: bool = False
          ) -> tuple[subprocess.Popen[bytes], int]:
    data = folder / "data"
    if not data.exists():
        if os.geteuid() == 0:
            os.chown(folder, *_postgres_ids())
        subprocess.run([str(bindir / "initdb"), "-D", str(data), "-A", "trust", "-U", USER,
                        "-E", "UTF8", "--locale=C.UTF-8", "--no-sync"], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, **_as_postgres())
    for _attempt in range(5):
        port = port or _free_port()
        log = open(folder / "server.log", "ab")  # noqa: SIM115 - the server's for its life
        server = subprocess.Popen(
            [str(bindir / "postgres"), "-D", str(data), "-p", str(port), "-k", str(folder),
             "-c", "listen_addresses=127.0.0.1", "-c", "max_connections=300",
             *([] if durable else ["-c", "fsync=off", "-c", "full_page_writes=off"]),
             "-c", "shared_buffers=64MB", "-c", "log_min_messages=warning"],
            stdout=log, stderr=log, stdin=subprocess.DEVNULL, start_new_session=True,
            **_as_postgres())
        log.close()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and server.poll() is None:
            if _accepting(folder, port) and _answers(port) and _ready(bindir, port):
                return server, port
            time.sleep(0.05)
        stop(server)
    raise RuntimeError("the server did not start; see " + str(folder / "server.log"))


def _answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


def _ready(bindir: Path, port: int) -> bool:
    """The server accepts connections (not only the socket: it is past its start-up)."""
    return subprocess.run([str(bindir / "pg_isready"), "-q", "-h", "127.0.0.1", "-p", str(port),
                           "-U", USER, "-d", "postgres"], check=False).returncode == 0


def _postgres_ids() -> tuple[int, int]:
    import pwd

    entry = pwd.getpwnam("postgres")
    return entry.pw_uid, entry.pw_gid


def stop(server: subprocess.Popen[bytes]) -> None:
    for sig, wait in ((signal.SIGINT, 20), (signal.SIGQUIT, 10), (signal.SIGKILL, 10)):
        if server.poll() is not None:
            return
        try:
            server.send_signal(sig)
            server.wait(wait)
        except subprocess.TimeoutExpired:
            continue
        except ProcessLookupError:
            return


def main() -> int:
    folder = Path(sys.argv[1])
    durable = "--durable" in sys.argv[2:]
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is pytest's: we follow our stdin
    # a SIGTERM to the test run's process group (`timeout`, a CI runner) reaches us too:
    # go as at EOF, stopping the server first (it runs in its own session, so nothing else
    # would; seen: a server left running after `timeout pytest` was terminated)
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda _sig, _frame: sys.exit(0))
    bindir = binaries()
    server = None
    try:
        if bindir is None:
            print("FAILED PostgreSQL is not installed (apt install postgresql)", flush=True)
            return 1
        try:
            server, port = start(folder, bindir, durable=durable)
        except (OSError, RuntimeError, subprocess.CalledProcessError) as error:
            detail = getattr(error, "stderr", b"") or b""
            print(f"FAILED {error} {detail.decode(errors='replace')[-500:]}".replace("\n", " "),
                  flush=True)
            return 1
        print(f"READY {port} {bindir}", flush=True)
        for line in sys.stdin.buffer:  # EOF (the session ended) is the signal to go
            command = line.strip().decode(errors="replace")
            if command == "stop" and server is not None:
                stop(server)
                server = None
                print("STOPPED", flush=True)
            elif command == "start" and server is None:
                server, port = start(folder, bindir, port, durable)
                print(f"READY {port} {bindir}", flush=True)
        return 0
    finally:
        if server is not None:
            stop(server)
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
