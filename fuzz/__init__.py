"""Differential fuzzing of kiln: random NumPy programs, run eagerly and compiled, compared.

``python -m kiln.fuzz --count N --seed S`` generates ``N`` well-defined programs
(:mod:`kiln.fuzz.generator`), runs each on NumPy and under ``kiln.function`` in
worker processes with a time limit (:mod:`kiln.fuzz.pool`), classifies the
outcome (:mod:`kiln.fuzz.check`: match, mismatch, refused, crash), shrinks the
failures (:mod:`kiln.fuzz.minimize`) and prints a summary
(:mod:`kiln.fuzz.campaign`). ``--mode grad`` checks ``kiln.grad`` against central
differences instead, ``--mode python`` lists, Python numbers, ``assert`` and ``raise``
against the program run as Python (:mod:`kiln.fuzz.modes`). docs/fuzzing.md explains
how to read it.
"""

from kiln.fuzz import grad_check, pyvalue_check  # noqa: E402, F401 (they register their oracles with kiln.fuzz.check)
