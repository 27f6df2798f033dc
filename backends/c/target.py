"""The ``c`` target of kiln-opt: ``kiln-opt file.mlir -t c`` prints the C translation unit."""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.target import Target


@dataclass(frozen=True)
class CTarget(Target):
    """Emit C11 for a module of func/arith/math/scf/memref ops (see docs/abi.md)."""

    name = "c"
    #: SIMD ISA for vector ops (``-t 'c{isa=avx2}'``); "" means $KILN_ISA, else the host's
    isa: str = ""

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        from kiln.backends.c.emitter import emit_c

        output.write(emit_c(module, isa=self.isa or None))
