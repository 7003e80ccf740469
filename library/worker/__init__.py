"""The library worker: the only code that opens a library's SQLite file or writes its files.

Runs in its own process, one per open library (`process.worker_main` is the spawn target).
Never imports `serpent_tk`, so a frozen build can start it through
`multiprocessing.freeze_support()` alone.

Map of the package:
- `process` (entry, handshake) -> `opening` (create/open, lock, checks) -> `recovery` ->
  `server` (pipe reader thread, reader threads, the writer loop, error translation).
- `commands/`: one module per group of commands behind the dispatch table
  (`commands.COMMANDS`); a new command is a module + one line in `commands.MODULES`.
- `transaction.WriteTx`: the one write helper (journal, change sequence, change log,
  idempotency). `entitystate`: undoable state per entity kind (history).
- `schema` (numbered migrations), `database` (connections, sqlite -> domain errors),
  `filestore` (content-addressed files through `.staging/`), `layout` (paths), `media`
  (kinds, Pillow header probe), `assetrows` (asset reads/writes shared by commands),
  `folderrows` (folder reads shared by commands), `textindex` (the FTS5 trigram index free
  text is searched through), `thumbstore` + `thumbcap` (thumbnails and their size cap).
"""
