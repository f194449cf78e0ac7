"""Runs of a session: keep several training runs, branch at step k, forbid a merge, compare runs."""
