"""How the grid lays out its cells: square cells, a justified grid, a list with columns.

Tk thread only (the grid's), except `geometry`: pure arithmetic, no Tk.
"""
