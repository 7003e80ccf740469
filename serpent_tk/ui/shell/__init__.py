"""The window's frame: root, main window, UiBus, command runner, theme, dialogs. Tk thread only."""
