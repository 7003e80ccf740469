"""The desktop window: the only package that imports tkinter. Tk thread only.

Rooms by what the person sees: `shell/` (the frame: root, main window, toolbar, panes,
UiBus, commands, theme, dialogs, tooltips), `menus/` (the action table, menu bar, keys,
right-click menus), `browser/` (the grid and what feeds it), `viewer/` (one asset big),
`actions/` (doing things to assets, dragging out, importing), `sidebar/`, `inspector/`,
`collections/` (the smart-collection editor), `settings/` (the Settings window),
`activity/` (status bar, task progress, toasts).
"""
