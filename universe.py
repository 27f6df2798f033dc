"""kiln's dialects, passes and targets, for kiln-opt, kiln.function and stock xdsl-opt: the
one place that knows every pass (xDSL's, kiln's, the named pipelines of :mod:`kiln.pipelines`,
the user's from :mod:`kiln.registry`), so it builds and runs pipelines.

Passes are discovered from file names: ``passes/foo_bar.py`` defines the pass
``foo-bar`` (a ``ModulePass`` subclass whose ``name`` is ``"foo-bar"``).
Discovery reads only the directory listing, so startup imports nothing; the
module is imported when the pass is first used, and by a pipeline stage only when
the module holds an op the pass acts on (:data:`PASS_ROOTS`). A test checks that
every file defines the pass its name promises.
"""

from __future__ import annotations

import functools
import importlib
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Dialect
from xdsl.passes import ModulePass, PassPipeline
from xdsl.universe import Universe
from xdsl.utils.target import Target

from kiln import pattern_dispatch, pipelines, registry, xdsl_patches

xdsl_patches.apply()
pattern_dispatch.apply()

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



@functools.cache
def pipeline_pass(name: str) -> type[ModulePass]:
    """A ModulePass class running the named pipeline, so ``-p graph-to-c`` works everywhere
    (made once per name: a dataclass costs ~0.4 ms to make)."""

    def apply(self: ModulePass, ctx: Context, op: ModuleOp) -> None:
        for stage in pipelines.PIPELINES[name]:
            run_stage(ctx, op, stage)

    cls = type(
        "Pipeline_" + name.replace("-", "_"),
        (ModulePass,),
        {"name": name, "apply": apply, "__doc__": f"The named pipeline {name}: {pipelines.pipeline_spec(name)}"},
    )
    return dataclass(frozen=True)(cls)


#: kiln passes that change a module only when it holds one of these ops (a name, or a dialect's
#: prefix such as ``"kalgo."``): a pipeline stage runs them, importing their modules, only then
#: (``x * 2 + 1`` has no product, histogram, routine, algorithm or exponential)
PASS_ROOTS: dict[str, tuple[str, ...]] = {
    "graph-merge-histograms": ("graph.histogram",),
    "graph-hoist-row-products": ("graph.matmul",),
    "graph-hoist-window-convs": ("graph.reduce",),
    "graph-linalg-to-calls": ("graph.linalg",),
    "convert-kalgo-to-kernel": ("kalgo.",),
    "linalg-matmul-to-kernel": ("linalg.fill",),  # a product accumulates onto a zero fill
    "kiln-symmetric-products": ("kernel.matmul",),
    "linalg-conv-to-kernel": ("linalg.fill",),
    "kiln-group-exp": ("math.exp",),
    "kiln-expand-half-powers": ("math.powf",),
    "kiln-divide-by-constants": ("arith.divf",),
    "kiln-crc-tables": ("scf.while",),
    "kiln-stream-stores": ("vector.store",),
}


def holds(module: ModuleOp, roots: tuple[str, ...]) -> bool:
    """Whether ``module`` holds an op named by ``roots`` (see :data:`PASS_ROOTS`)."""
    return any(op.name.startswith(roots) for op in pattern_dispatch.walked(module, reverse=False, region_first=False))


@functools.cache
def rooted_pass(name: str) -> type[ModulePass]:
    """A ModulePass that runs kiln's pass ``name`` (imported then) when the module holds one of
    its :data:`PASS_ROOTS`, and does nothing otherwise, as the pass would (made once per name,
    not per pipeline built: six per compile, ~0.4 ms each)."""
    roots = PASS_ROOTS[name]

    def apply(self: ModulePass, ctx: Context, op: ModuleOp) -> None:
        if holds(op, roots):
            load_pass(name)().apply(ctx, op)

    cls = type(
        "Rooted_" + name.replace("-", "_"),
        (ModulePass,),
        {"name": name, "apply": apply, "__doc__": f"kiln's pass {name}, run on modules holding {', '.join(roots)}"},
    )
    return dataclass(frozen=True)(cls)


def kiln_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """kiln's passes (one per file) and named pipelines, as lazy factories."""
    passes: dict[str, Callable[[], type[ModulePass]]] = {
        name: (lambda n=name: load_pass(n)) for name in pass_names()
    }
    passes.update({name: (lambda n=name: pipeline_pass(n)) for name in pipelines.PIPELINES})
    return passes


def all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Every pass by pipeline name: xDSL's, kiln's, the named pipelines, then the user's."""
    from xdsl.transforms import get_all_passes

    return {**get_all_passes(), **kiln_passes(), **registry.USER_PASSES}


def make_context() -> Context:
    """A context that knows xDSL's, kiln's and the user's dialects (all loaded lazily)."""
    from xdsl.dialects import get_all_dialects

    ctx = Context()
    for name, factory in {**get_all_dialects(), **DIALECTS, **registry.USER_DIALECTS}.items():
        ctx.register_dialect(name, factory)
    return ctx


def build_pipeline(
    spec: str, callback: Callable[[ModulePass, ModuleOp, ModulePass], None] | None = None, *, rooted: bool = False
) -> PassPipeline:
    """Parse ``spec`` against every known pass (xDSL's, kiln's, pipelines, user-registered);
    with ``rooted``, the passes of :data:`PASS_ROOTS` run only on modules holding their roots."""
    passes = all_passes()
    if rooted:
        passes.update({n: (lambda n=n: rooted_pass(n)) for n in PASS_ROOTS if n not in registry.USER_PASSES})
    return PassPipeline.parse_spec(passes, spec, callback)


def run_stage(ctx: Context, module: ModuleOp, stage: str, on_pass: Callable[[int, int, str], None] | None = None) -> None:
    """Lower ``module`` in place from the stage before ``stage`` to ``stage``, verifying it after
    every pass when :func:`kiln.pipelines.verifying`; ``on_pass(i, n, name)`` before each of its
    ``n`` passes (progress of a long compile)."""
    spec = pipelines.STAGES[stage]
    if not spec:
        return
    verify = pipelines.verifying()
    count = 0

    def between(previous: ModulePass | None, op: ModuleOp, following: ModulePass | None) -> None:
        nonlocal count
        if verify:
            pipelines.verify_after_each_pass(previous, op, following)
        if following is not None and on_pass is not None:
            count += 1
            on_pass(count, len(pipeline.passes), following.name)

    pipeline = build_pipeline(spec, between if on_pass is not None or verify else None, rooted=True)
    pipeline.apply(ctx, module)


KILN_UNIVERSE = Universe(all_dialects=DIALECTS, all_passes=kiln_passes(), all_targets=TARGETS)
