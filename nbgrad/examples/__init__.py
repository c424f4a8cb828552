"""Runnable examples: `python -m nbgrad.examples.linear_regression`, `python -m nbgrad.examples.digits`."""
