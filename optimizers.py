"""``kiln.optimizers``: SGD and Adam, which update ``kiln.Variable``s in place (docs/gradients.md)."""

from kiln.frontend.optimizers import SGD, Adam, Optimizer

__all__ = ["SGD", "Adam", "Optimizer"]
