"""Background tasks: the live board, the task rows and the runner thread. Worker process."""
