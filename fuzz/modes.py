"""The fuzzer's modes: which generator writes a campaign's programs (``--mode``).

``numpy`` (the default) checks ``kiln.function`` against NumPy (:mod:`kiln.fuzz.generator`);
``grad`` checks ``kiln.grad`` against central differences (:mod:`kiln.fuzz.grad_generator`);
``python`` checks lists, Python numbers, ``assert``, ``raise`` and short-circuit tests against the
program run as Python (:mod:`kiln.fuzz.pyvalue_generator`).
A program says its mode itself (``FUZZ_MODE``), so ``--check`` and the minimizer need no flag.
"""

from __future__ import annotations

from kiln.fuzz.config import Config
from kiln.fuzz.generator import Program, generate
from kiln.fuzz.grad_generator import generate_grad
from kiln.fuzz.pyvalue_generator import generate_pyvalues

MODES = ("numpy", "grad", "python")


def generate_program(mode: str, seed: str, config: Config) -> Program:
    """Program ``seed`` of ``mode`` (the numpy mode's switches are ``config``; the others have none)."""
    if mode == "numpy":
        return generate(seed, config)
    if mode == "grad":
        return generate_grad(seed)
    if mode == "python":
        return generate_pyvalues(seed)
    raise ValueError(f"unknown fuzzing mode {mode!r}; known: {', '.join(MODES)}")
