"""Undo and redo of every command (issue 25)."""
