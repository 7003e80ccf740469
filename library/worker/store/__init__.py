"""The library on disk: layout, lock, schema, writes, files, free space, recovery, archives.

Worker process.
"""
