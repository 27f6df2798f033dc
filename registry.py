"""User extensions: dialects and passes registered from Python.

A module loaded with ``kiln-opt --load`` (or imported before calling kiln's
pipelines) calls :func:`register_dialect` and :func:`register_pass`; kiln-opt
and kiln's pipelines then see them beside kiln's and xDSL's own.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.ir import Dialect
from xdsl.passes import ModulePass

USER_DIALECTS: dict[str, Callable[[], Dialect]] = {}
USER_PASSES: dict[str, Callable[[], type[ModulePass]]] = {}


def register_dialect(dialect: Dialect) -> None:
    """Make ``dialect`` parseable by kiln-opt and kiln's pipelines."""
    USER_DIALECTS[dialect.name] = lambda: dialect


def register_pass(pass_cls: type[ModulePass]) -> type[ModulePass]:
    """Make ``pass_cls`` usable by name in ``-p`` pipelines; usable as a class decorator."""
    USER_PASSES[pass_cls.name] = lambda: pass_cls
    return pass_cls
