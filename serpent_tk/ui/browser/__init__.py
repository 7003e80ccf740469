"""The thumbnail grid and what feeds it: pages, thumbnails, search, sort. Tk thread only."""
