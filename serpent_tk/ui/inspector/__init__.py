"""The inspector: the selected assets' fields, tags and rating, edited in place. Tk thread only."""
