"""Repairing a damaged library: a new library of what can still be read. Worker process."""
