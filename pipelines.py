"""Named pipelines: the lowering stages, as data shared by ``kiln-opt`` and ``kiln.function``.

A stage is a name and the passes that lead to it from the previous stage.
``kiln-opt -p graph-to-c`` runs the same passes as the decorator, and
``ConcreteFunction.lowered(stage)`` prints the IR after each stage. Running them is
:mod:`kiln.universe`'s (``build_pipeline``, ``run_stage``): it knows every pass.
"""

from __future__ import annotations

import hashlib


#: stage name -> the pipeline (xdsl-opt syntax) that lowers the previous stage to it
STAGES: dict[str, str] = {
    "graph": "",
    "tensor": 'graph-order-effects,canonicalize,cse,apply-rules{file="kiln:matmul-scale"},graph-merge-histograms,graph-linalg-to-calls,convert-graph-to-linalg,tensor-resolve-dims,linalg-fuse-elementwise,linalg-fuse-siblings,linalg-fuse-elementwise,linalg-fuse-shared,canonicalize,cse',
    "buffer": "kiln-bufferize,kiln-elide-copies,canonicalize,cse",
    "loops": "kiln-linalg-calls-to-kernel,convert-kalgo-to-kernel,kiln-write-transposed,kiln-fold-transposes,linalg-matmul-to-kernel,linalg-conv-to-kernel,linalg-generalize-named-ops,kiln-interchange-loops,kiln-parallel-loops,convert-linalg-to-loops,lower-affine,canonicalize,cse,"
    "kiln-vectorize,canonicalize,cse,kiln-loops-simplify,promote-small-allocs,kiln-outline-parts,kiln-if-to-select,kiln-group-exp",
    # CUDA: buffer -> parallel (scf.parallel nests) -> gpu (kernels outlined, launches on the host)
    "parallel": "kiln-linalg-calls-to-kernel,convert-kalgo-to-kernel,linalg-generalize-named-ops,kiln-gpu-tile-matmul,convert-linalg-to-parallel-loops,lower-affine,canonicalize,cse",
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
    per compile, not cached, for that reason)."""
    return hashlib.sha256(";".join(f"{s}={STAGES[s]}" for s in stages).encode()).hexdigest()[:16]
