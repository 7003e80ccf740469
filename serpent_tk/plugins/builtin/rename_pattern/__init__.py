"""The `rename-pattern` plugin: rename assets by a pattern such as `{folder}-{n:03}`.

Runs in its plugin host process.
"""
