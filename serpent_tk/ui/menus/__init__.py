"""The window's actions, declared once, and everything built from them: the menu bar, the
key bindings, the right-click menus of the grid and the sidebar, Help → Keyboard shortcuts,
and menus coloured like the theme. Tk thread only.
"""
