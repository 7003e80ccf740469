"""The window's actions, declared once, and the menus and keys built from them.

The menu bar, the key bindings, the right-click menus of the grid and the sidebar, Help →
Keyboard shortcuts, and menus coloured like the theme. Tk thread only.
"""
