"""The library on disk: layout, lock, schema, writes, file store, free space, recovery, archives.
Worker process."""
