"""The desktop window. The only package that imports tkinter; Tk thread only."""
