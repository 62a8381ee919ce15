"""The NumPy backend: one host device computing with NumPy."""

from .backend import NumpyBackend

__all__ = ["NumpyBackend"]
