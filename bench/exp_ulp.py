"""The worst error of kiln's vector f32 exp over every float32 its fast path takes (|x| <= 86).

    python -m kiln.bench.exp_ulp [--isa avx2]     (~1 minute: 2.2 * 10^9 inputs)

docs/vector-math.md quotes its output. The kernel is the one kiln emits for ``math.exp`` in a
vectorized loop; the reference is double-precision exp, the error |got - ref| in units of the
last place of ref rounded to float32. tests/test_simd.py checks four binades of it in CI.
"""

from __future__ import annotations

import argparse

import numpy as np
from xdsl.dialects import func
from xdsl.parser import Parser

from kiln.backends.c.emitter import emit_c
from kiln.backends.c.isa import host_isa
from kiln.backends.c.toolchain import compile_shared
from kiln.backends.loader import load_function, signature_of
from kiln.universe import build_pipeline, make_context

_KERNEL = """func.func @k_exp(%x: memref<?xf32>, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    %a = memref.load %x[%i] : memref<?xf32>
    %r = math.exp %a : f32
    memref.store %r, %out[%i] : memref<?xf32>
  }
  func.return
}
"""


def ulps(got: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """|got - ref| in units of the last place of ref rounded to float32."""
    spacing = np.spacing(np.abs(ref.astype(np.float32))).astype(np.float64)
    return np.abs(got.astype(np.float64) - ref) / spacing


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--isa", default=host_isa())
    isa = parser.parse_args().isa
    ctx = make_context()
    module = Parser(ctx, _KERNEL).parse_module()
    build_pipeline(f"kiln-vectorize{{isa={isa}}},canonicalize,cse").apply(ctx, module)
    fn_op = next(op for op in module.ops if isinstance(op, func.FuncOp))
    kernel = load_function(compile_shared(emit_c(module, isa=isa)), "k_exp", signature_of(fn_op))
    last = int(np.array(86.0, np.float32).view(np.int32))
    worst, at = 0.0, 0.0
    step = 1 << 24
    for sign in (1, -1):
        for start in range(0, last + 1, step):
            x = np.arange(start, min(start + step, last + 1), dtype=np.int32).view(np.float32) * np.float32(sign)
            out = np.empty_like(x)
            kernel(x, out)
            err = ulps(out, np.exp(x.astype(np.float64)))
            i = int(np.argmax(err))
            if err[i] > worst:
                worst, at = float(err[i]), float(x[i])
    print(f"{isa}: max {worst:.4f} ulp over every float32 with |x| <= 86, at x = {at!r}")


if __name__ == "__main__":
    main()
