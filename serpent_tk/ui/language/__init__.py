"""The window's words in the person's language: gettext catalogues, numbers and dates.

English and 简体中文 (`translate`), numbers, sizes and dates in the person's locale
(`formats`, Babel), the fonts that have the script's glyphs (`fonts`, Tk thread), the
gateway's words said in the window's language (`gateway_words`) and the catalogue tools
(`catalogues`: extract, update, compile). Thread-safe unless a module says otherwise.
"""
