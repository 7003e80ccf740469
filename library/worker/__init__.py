"""The library worker: the only code that opens a library's SQLite file or writes its files.

Runs in its own process, one per open library (`process.worker_main` is the spawn target).
Never imports `serpent_tk`, so a frozen build can start it through
`multiprocessing.freeze_support()` alone.
"""
