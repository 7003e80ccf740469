"""Studio libraries: rows in PostgreSQL, files in the library folder on a shared drive.

Runs in the worker process. Several Serpents on several machines work on one library at
once (docs/studio.md).
"""
