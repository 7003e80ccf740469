"""Reading files that are not plain pictures: SVG, video, audio, fonts, PDF; facts and pictures.

Pure functions, thread-safe, used by both processes: the worker's imports, previews and
analysis (`library/worker/files/`), and the window's viewer (a PDF page or an SVG at screen
size, a video's strip of frames). `readers` says which reader takes which extension; each
module imports its library (resvg, PyAV, pypdfium2, fontTools) only when a file of its kind
is read, so a process that never meets one never loads it.
"""
