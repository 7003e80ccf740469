"""The `contact-sheet` plugin: one PNG showing many assets with their names, added to the library.

Runs in its plugin host process.
"""
