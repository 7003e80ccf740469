"""The library on disk: layout, lock, schema, writes, file store, recovery. Worker process."""
