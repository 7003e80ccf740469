"""Rows shared by commands: assets, folders, undo state, smart rules, text index. Worker process."""
