"""The sidebar: folders, tags, collections, Trash, counts, right-click menus. Tk thread only."""
