"""Benchmarks, run as ``python -m bench.<name>``; they print figures and ratios to targets."""
