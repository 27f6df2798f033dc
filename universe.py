"""kiln's dialects, passes and targets, for kiln-opt and for stock xdsl-opt.

Passes are discovered from file names: ``passes/foo_bar.py`` defines the pass
``foo-bar`` (a ``ModulePass`` subclass whose ``name`` is ``"foo-bar"``).
Discovery reads only the directory listing, so startup imports nothing; the
module is imported when the pass is first used. A test checks that every file
defines the pass its name promises.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from pathlib import Path

from xdsl.ir import Dialect
from xdsl.passes import ModulePass
from xdsl.universe import Universe
from xdsl.utils.target import Target

from kiln import xdsl_patches

xdsl_patches.apply()

_PASSES_DIR = Path(__file__).parent / "passes"


def pass_names() -> list[str]:
    """Pipeline names of kiln's passes, one per file in ``passes/``."""
    return sorted(
        p.stem.replace("_", "-")
        for p in _PASSES_DIR.glob("*.py")
        if not p.stem.startswith("_")
    )


def load_pass(name: str) -> type[ModulePass]:
    """Import ``passes/<name>.py`` and return the pass class it defines."""
    module = importlib.import_module(f"kiln.passes.{name.replace('-', '_')}")
    for obj in vars(module).values():
        if (
            inspect.isclass(obj)
            and issubclass(obj, ModulePass)
            and obj.__module__ == module.__name__
            and getattr(obj, "name", None) == name
        ):
            return obj
    raise ImportError(f"kiln.passes.{name.replace('-', '_')} defines no pass named {name!r}")


def _dialect(module: str, attr: str) -> Callable[[], Dialect]:
    return lambda: getattr(importlib.import_module(module), attr)


def _target(module: str, attr: str) -> Callable[[], type[Target]]:
    return lambda: getattr(importlib.import_module(module), attr)


DIALECTS: dict[str, Callable[[], Dialect]] = {
    "graph": _dialect("kiln.dialects.graph", "Graph"),
    "kmath": _dialect("kiln.dialects.kmath", "KMath"),
    "kvec": _dialect("kiln.dialects.kvec", "KVec"),
    "krt": _dialect("kiln.dialects.krt", "KRT"),
    "kernel": _dialect("kiln.dialects.kernel", "Kernel"),
    "kalgo": _dialect("kiln.dialects.kalgo", "KAlgo"),
}

TARGETS: dict[str, Callable[[], type[Target]]] = {
    "c": _target("kiln.backends.c.target", "CTarget"),
    "cuda": _target("kiln.backends.cuda.target", "CudaTarget"),
}



def kiln_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """kiln's passes (one per file) and named pipelines, as lazy factories."""
    from kiln.pipelines import PIPELINES, pipeline_pass

    passes: dict[str, Callable[[], type[ModulePass]]] = {
        name: (lambda n=name: load_pass(n)) for name in pass_names()
    }
    passes.update({name: (lambda n=name: pipeline_pass(n)) for name in PIPELINES})
    return passes


KILN_UNIVERSE = Universe(all_dialects=DIALECTS, all_passes=kiln_passes(), all_targets=TARGETS)
