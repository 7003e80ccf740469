"""What is going on: status bar, task progress, toasts, agent activity. Tk thread only."""
