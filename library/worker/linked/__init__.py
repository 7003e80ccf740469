"""Linked folders: which disk files belong, syncing them in, watching the disk. Worker process."""
