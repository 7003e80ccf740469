"""A spare library worker's entry point (`spare_main`, the spawn target): a worker started
before anyone knows which library it will serve, so opening one does not wait for imports.

Runs in the worker process. The main process imports this module only to name the target,
so it imports nothing at the top. The spare does the imports every worker needs (the store,
the request loop, every command module) and the commands' `@warm_up` work (decoders a first
import loads), says `worker.spare-ready`, then waits for its first
message: `Open` makes it an ordinary worker for that library (`process.worker_main`, the same
recovery and `Hello`); `Shutdown` or the pipe closing ends it, having touched no library.
"""

from __future__ import annotations

from multiprocessing.connection import Connection

SPARE_READY = "worker.spare-ready"


def spare_main(conn: Connection) -> None:
    import gc
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # as every worker: Ctrl-C is the host's
    gc.disable()  # the imports make no garbage worth ~10% of their time in collections
    from library.protocol import Event, Open, decode_to_spare, encode
    from library.worker import process

    process.import_ahead()
    gc.freeze()  # what was imported lives as long as the worker: out of full collections
    gc.enable()
    try:
        conn.send_bytes(encode(Event(name=SPARE_READY, data={})))
        message = decode_to_spare(conn.recv_bytes())
    except (EOFError, OSError):
        return  # the main process went away (or gave the spare up) before naming a library
    if isinstance(message, Open):
        process.worker_main(conn, message.opening)
