"""The built-in commands' registry declarations, one module per domain. Thread-safe (data)."""
