"""tacit-gen: one data contract, rendered into every tool that enforces it."""

__version__ = "0.1.0"
