"""What the person does to assets: edit, trash, open, right-click menu, import. Tk thread only."""
