"""The `ocr-text` plugin: the words in imported pictures (Chinese and English), read offline.

Runs in its plugin host process.
"""
