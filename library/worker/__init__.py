"""The library worker: the only code that opens a library's SQLite file or writes its files.

Runs in its own process, one per open library (`process.worker_main` is the spawn target).
Never imports `serpent_tk`, so a frozen build can start it through
`multiprocessing.freeze_support()` alone.

Map of the package (each room's `__init__` says what it holds):
- here: `process` (entry, handshake) -> `store.opening` (create/open, lock, checks) ->
  `store.recovery` -> `server` (pipe reader thread, reader threads, the writer loop, error
  translation); `context` (what a command handler is given).
- `commands/`: one module per group of commands behind the dispatch table
  (`commands.load()`: each entry of `library.catalogue` names its function there as
  `"<module>:<function>"`, the modules found by `pkgutil`); a new command is its catalogue
  entry plus its function.
  Commands import the rooms below; the rooms never import `commands`.
- `store/`: the library folder on disk. `transaction.WriteTx` is the one write helper
  (journal, change sequence, change log, the request ledger `requests`: a write is never
  applied twice); `schema` (numbered migrations), `database` (connections, sqlite ->
  domain errors), `filestore` (content-addressed files through `.staging/`), `layout`
  (paths), `lock`, `identity` (ids, timestamps), `archive` (export/unpack).
- `rows/`: rows shared by commands: `assetrows`, `folderrows`, `entitystate` (undoable
  state per entity kind, for history) with `tagstate` and `collectionstate`, `filters` (the
  one query builder: a tree of rules and any/all groups to SQL, for smart collections and
  search) with `rulefields` (each field's check and SQL) and `searchtree` (a search's filters
  as a tree), `tagfold` (Unicode case folding of tag names), `textindex` (the FTS5 trigram
  index free text is searched through).
- `files/`: what a stored file holds: `media` (kinds, Pillow header probe) with `exif`,
  `imageformats`, `thumbstore` (thumbnails; `store_for` is the one store per library) +
  `thumbcap` (their size cap), `previews` (the pool that makes them on every core),
  `analyser` with `palette`, `colours` (CIELAB) and `similarity` (duplicates), `sources`
  (what an import takes from disk).
- `tasks/`: `taskboard` (live progress, cancel flags), `taskrows`, `taskrunner` (the
  background thread). `linked/`: linked disk folders (`linkrules`, `linksync`, `linkmirror`
  (subfolders as library folders), `linkwatch`).
"""
