"""The built-in commands' registry declarations, one module per domain. Main process.

The declarations are data (thread-safe); `library` also holds the handlers of the commands the
main process answers itself, which run as the gateway's steps.
"""
