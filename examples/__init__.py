"""Runnable examples. Each module defines ``FUNCTION`` (a kiln.function), ``inputs()``
and ``reference(*inputs)`` (the same computation in NumPy); ``kiln demo`` runs them all."""

EXAMPLES: tuple[str, ...] = ("simple_nn_layer", "deep_net", "lstm_cell")
