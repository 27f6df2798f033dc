"""The ``cuda`` target of kiln-opt: ``kiln-opt file.mlir -p graph-to-cuda -t cuda`` prints the ``.cu``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.target import Target


@dataclass(frozen=True)
class CudaTarget(Target):
    """Emit CUDA (kernels plus C-ABI host entry points) for a module after the ``gpu`` stage."""

    name = "cuda"

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        from kiln.backends.cuda.emitter import emit_cuda

        output.write(emit_cuda(module))
