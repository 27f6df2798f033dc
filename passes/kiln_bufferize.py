"""``kiln-bufferize``: from the tensor level to the buffer level (xDSL has no bufferization)."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.passes import ModulePass

from kiln.passes.bufferize.dealloc import insert_deallocs
from kiln.passes.bufferize.func import ConstantPool, FunctionBufferizer, convert_signature


@dataclass(frozen=True)
class KilnBufferizePass(ModulePass):
    """Rewrite tensor-level functions into destination-passing style on memrefs.

    Expects a module of ``func.func``s over ranked tensors (static or ``?`` dims,
    0-d included) whose bodies are one block of: ``tensor.empty``,
    ``tensor.dim``, ``tensor.extract``, static ``tensor.extract_slice`` (rank
    reduction allowed), ``tensor.collapse_shape``/``expand_shape``, linalg
    structured ops on tensors (``generic``, ``fill``, ``matmul``, ...), dense
    tensor ``arith.constant``, ``func.call``, ``func.return``, dynamic-offset
    ``tensor.extract_slice``/``insert_slice``, ``scf.if``/``scf.while`` carrying
    tensors and tokens (ownership rules in ``bufferize/control.py``), the stateful
    graph ops ``graph.token``/``read``/``assign``/``print`` with ``!graph.resource``
    arguments (rules in ``bufferize/effects.py``), and any op that touches no tensor
    (scalar ``arith``/``math``, ...). Anything else that touches a tensor
    (``scf.for`` over tensors, say) stops the pass with a diagnostic naming the op.

    Guarantees, for every function:

    * Signature: each tensor argument becomes an identity-layout memref of the
      same shape, in place; each tensor result becomes a memref out-parameter
      appended after all arguments, in result order; the function returns only
      its non-tensor results. Calls follow the same convention, the caller
      allocating the callee's outputs (sizes of dynamic results are recomputed
      from the callee's body). Out-parameters must not alias the inputs.
    * Arguments and constants are never written. A linalg op writes into its
      ``outs`` buffer only when that is a whole temporary no later op reads;
      otherwise into a fresh buffer, initialized by a copy when the payload
      reads its ``outs``.
    * A returned value produced by a linalg op, ``tensor.empty`` or a call is
      built directly in its out-parameter, through chains of single-use
      ``outs`` (fill + matmul); any other returned value (argument, view,
      constant, value returned twice) is copied into the out-parameter.
    * Copies are identity ``linalg.generic`` ops; views are ``memref.subview``
      (strided layout), ``memref.collapse_shape``/``expand_shape`` (a strided
      source is first copied into a contiguous temporary); dense constants are
      private constant ``memref.global @__kiln_constant_N`` (one per distinct
      value, at the top of the module) read with ``memref.get_global``.
    * Every temporary ``memref.alloc`` is freed by a ``memref.dealloc`` right
      after its last use (views, ``memref.cast`` included) in the block that allocates it;
      unused ones are removed. Nothing leaks and nothing is freed early; a
      buffer allocated inside a loop iteration is freed in that iteration.
    * ``scf.if`` results and ``scf.while`` carried values of static shape live in
      one buffer each, owned by the enclosing block (allocated before the op, or the
      out-parameter); branches and iterations copy into it. One of dynamic shape
      (not returned) may change size, so the op carries a memref: each region hands
      over a buffer it owns (or a fresh copy) and a loop frees the carried buffer it
      did not pass on; the op's result is a temporary of the enclosing block.
      In-place writes happen only to temporaries of the writing op's own block (and
      to a carried buffer in its loop's body).
    * A ``!graph.resource`` argument becomes the variable's own memref (identity
      layout, written in place by ``graph.assign``, not an out-parameter).
    * New ops carry the location of the tensor op they replace.
    """

    name = "kiln-bufferize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        functions = [f for f in op.body.block.ops if isinstance(f, func.FuncOp)]
        originals = {f.sym_name.data: f.clone() for f in functions if _has_dynamic_result(f)}
        pool = ConstantPool(op.body.block)
        for fn in functions:
            if fn.is_declaration:
                convert_signature(fn)
            else:
                insert_deallocs(FunctionBufferizer(fn, pool, originals).run())


def _has_dynamic_result(fn: func.FuncOp) -> bool:
    """Callers of such a function need its body to size their result buffers."""
    return any(
        isinstance(t, TensorType) and not t.has_static_shape() for t in fn.function_type.outputs
    )
