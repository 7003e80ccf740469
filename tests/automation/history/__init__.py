"""Undo and redo of every command; an undo caught by a worker crash undoes once (issue 25)."""
