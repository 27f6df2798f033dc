"""Global switches (``kiln.config``), as in ``tf.config``."""

from __future__ import annotations

_run_eagerly = False


def run_functions_eagerly(flag: bool) -> None:
    """Run every ``kiln.function`` as plain Python on NumPy (pdb and print work) when True."""
    global _run_eagerly
    _run_eagerly = bool(flag)


def functions_run_eagerly() -> bool:
    """Whether :func:`run_functions_eagerly` is on."""
    return _run_eagerly
