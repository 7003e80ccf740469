"""The desktop window: the only package that imports tkinter. Tk thread only.

Rooms by what the person sees: `shell/` (the frame: root, main window, UiBus, commands,
theme, dialogs), `browser/` (the grid and what feeds it), `actions/` (doing things to
assets, importing), `sidebar/`, `inspector/`, `collections/` (the smart-collection editor),
`settings/` (the Settings window), `activity/` (status bar, task progress, toasts).
"""
