"""Named pipelines: the lowering stages, as data shared by ``kiln-opt`` and ``kiln.function``.

A stage is a name and the passes that lead to it from the previous stage.
``kiln-opt -p graph-to-c`` runs the same passes as the decorator, and
``ConcreteFunction.lowered(stage)`` prints the IR after each stage. Running them is
:mod:`kiln.universe`'s (``build_pipeline``, ``run_stage``): it knows every pass.
"""

from __future__ import annotations

import hashlib
import os
from typing import TYPE_CHECKING

from xdsl.dialects.builtin import FileLineColLoc
from xdsl.utils.exceptions import DiagnosticException

from kiln.dialects.ir_utils import describe_location

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.ir import Operation
    from xdsl.passes import ModulePass


#: stage name -> the pipeline (xdsl-opt syntax) that lowers the previous stage to it
STAGES: dict[str, str] = {
    # the trace's own results whose length only the data decides are padded to a bound
    # (kiln.function runs it on a trace that returns a dynamic size)
    "graph": "graph-bound-results",
    "tensor": 'graph-inline-calls{keep-ops=64},graph-order-effects,canonicalize,cse,apply-rules{file="kiln:matmul-scale"},graph-merge-histograms,graph-hoist-row-products,graph-hoist-window-convs,graph-linalg-to-calls,convert-graph-to-linalg,tensor-resolve-dims,linalg-fuse-elementwise,linalg-fuse-siblings,linalg-fuse-elementwise,linalg-fuse-shared,canonicalize,cse',
    "buffer": "kiln-bufferize,kiln-elide-copies,canonicalize,cse",
    "loops": "kiln-linalg-calls-to-kernel,convert-kalgo-to-kernel,kiln-write-transposed,kiln-fold-transposes,linalg-matmul-to-kernel,kiln-symmetric-products,linalg-conv-to-kernel,linalg-generalize-named-ops,kiln-interchange-loops,kiln-parallel-loops,convert-linalg-to-loops,lower-affine,canonicalize,cse,"
    "kiln-expand-half-powers,kiln-vectorize,canonicalize,cse,kiln-loops-simplify,promote-small-allocs,kiln-outline-parts,kiln-crc-tables,kiln-if-to-select,kiln-group-exp,kiln-divide-by-constants,kiln-stream-stores",
    # CUDA: buffer -> parallel (scf.parallel nests) -> gpu (kernels outlined, launches on the host)
    "parallel": "graph-inline-calls,kiln-linalg-calls-to-kernel,convert-kalgo-to-kernel,linalg-generalize-named-ops,kiln-gpu-tile-matmul,convert-linalg-to-parallel-loops,lower-affine,canonicalize,cse",
    "gpu": "kiln-gpu-outline,canonicalize,cse",
}

#: named pipelines usable with ``-p``; each is a list of stage transitions
PIPELINES: dict[str, tuple[str, ...]] = {
    "graph-to-tensor": ("tensor",),
    "tensor-to-buffer": ("buffer",),
    "buffer-to-loops": ("loops",),
    "graph-to-loops": ("tensor", "buffer", "loops"),
    "graph-to-c": ("tensor", "buffer", "loops"),
    "buffer-to-parallel": ("parallel",),
    "parallel-to-gpu": ("gpu",),
    "graph-to-cuda": ("tensor", "buffer", "parallel", "gpu"),
}


def stage_names() -> list[str]:
    return list(STAGES)


def pipeline_spec(name: str) -> str:
    """The pass list (xdsl-opt syntax) a named pipeline runs."""
    return ",".join(STAGES[s] for s in PIPELINES[name] if STAGES[s])


def stages_fingerprint(stages: tuple[str, ...]) -> str:
    """What a compile cache keys on for the pipelines of ``stages``: their pass lists, so that
    a program that edits :data:`STAGES` (to try a pass) never gets C lowered without it (read
    per compile, not cached, for that reason), and whether :func:`verifying`, so that a
    verifying run (CI's) lowers, and so verifies, what a run without it cached."""
    text = ";".join(f"{s}={STAGES[s]}" for s in stages) + (";verified" if verifying() else "")
    return hashlib.sha256(text.encode()).hexdigest()[:16]


#: the environment variable that makes kiln.function verify the IR after every pass (CI sets it)
VERIFY_ENV = "KILN_VERIFY"


class IRVerifyError(DiagnosticException):
    """A pass left IR that xDSL's verifier refuses (a bug in that pass: kiln-opt would reject it)."""


def verifying() -> bool:
    """Whether ``KILN_VERIFY`` is set (to anything but 0): read per pipeline run, so a test can set it."""
    return os.environ.get(VERIFY_ENV, "0") not in ("", "0")


def verify_after_each_pass(previous: ModulePass | None, module: ModuleOp, following: ModulePass | None) -> None:
    """A ``PassPipeline`` callback (xdsl-opt calls it before the first pass and after each one)
    that verifies ``module``, so that IR kiln-opt would refuse is caught at the pass that made it:
    :class:`IRVerifyError` names that pass, the op and the op's location."""
    try:
        module.verify()
    except (DiagnosticException, ValueError) as e:
        op, reason = _first_invalid(module, e)
        producer = f"pass {previous.name}" if previous is not None else "the input"
        if previous is None and following is not None:
            producer += f" of pass {following.name}"
        where = f"'{op.name}' at {_location(op)}" if op is not None else "the module"
        raise IRVerifyError(f"the IR after {producer} does not verify: {where}: {reason}") from None


def _first_invalid(module: ModuleOp, error: Exception) -> tuple[Operation | None, str]:
    """The first op (in walk order) that fails to verify on its own, and why; ``error`` when none does
    (a block-level fault that ``Block.verify`` found)."""
    for op in module.walk():
        try:
            op.verify(verify_nested_ops=False)
        except (DiagnosticException, ValueError) as e:
            return op, _message(e)
    return None, _message(error)


def _message(error: Exception) -> str:
    """The error's message on one line (the printed module xDSL attaches is a note, left out)."""
    return " ".join(str(error).split()) or type(error).__name__


def _location(op: Operation) -> str:
    """``file:line:col`` of ``op``, or of the nearest enclosing op that has one."""
    where: Operation | None = op
    while where is not None:
        if isinstance(where.location, FileLineColLoc):
            return describe_location(where.location)
        where = where.parent_op()
    return "an unknown location"
