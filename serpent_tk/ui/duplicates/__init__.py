"""The duplicates review window: near-identical images side by side, trashed in one step.

Tk thread only."""
