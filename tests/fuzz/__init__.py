"""Seeded fuzzing of kerncraft (issue 15): corpus.py generates, runner.py runs."""
