"""The training run: the worker process body (Qt-free), the messages it exchanges with the window, and
the controller that starts it, feeds its records to the session and stops it."""
