"""Runnable examples. Each module defines ``FUNCTION`` (a kiln.function), ``inputs()``
and ``reference(*inputs)`` (the same computation in NumPy); ``kiln demo`` runs them all.
Stateful examples (find_next_odd, scalar_model) advance their kiln.Variables on every call;
their ``reference`` advances NumPy state the same way, so first calls agree."""

EXAMPLES: tuple[str, ...] = (
    "simple_nn_layer",
    "deep_net",
    "lstm_cell",
    "find_next_odd",
    "scalar_model",
    "square_if_positive",
    "sum_even",
    "fizzbuzz",
    "custom_model",
    "square_if_positive_naive",
    "mlp_training",
)
