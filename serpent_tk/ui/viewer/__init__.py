"""The built-in viewer: one asset over the grid area, zoomed, panned, stepped through.

Tk thread only, except `decoder` (its own decoder thread) and `zoom` (pure logic,
thread-safe). `viewer_pane` draws and takes input, `zoom` is the fit/100 %/zoom-at-the-
cursor/pan model, `decoder` reads files with Pillow off the Tk thread (downsampled to what
the screen needs), `animation` plays GIF/WebP frames with `after()`, `order` steps through
the grid's order.
"""
