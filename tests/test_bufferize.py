"""kiln-bufferize: differential semantics (tensor level vs. buffer level vs. NumPy) and structure.

xDSL's interpreter runs each function twice: at the tensor level, and after
``kiln-bufferize,linalg-generalize-named-ops,convert-linalg-to-loops,canonicalize,cse``
(calling the out-parameter convention). Both must match NumPy. The overlay
below supplies what the upstream interpreter lacks (see notes §5).
"""

from __future__ import annotations

from itertools import product
from math import prod
from typing import Any

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects import arith, func, math, memref, tensor
from xdsl.dialects.linalg import Linalg
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.builtin import Builtin, DenseIntOrFPElementsAttr, MemRefType, ModuleOp, TensorType
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls
from xdsl.interpreters import register_implementations
from xdsl.interpreters.builtin import xtype_for_el_type
from xdsl.interpreters.math import MathFunctions
from xdsl.interpreters.shaped_array import ShapedArray
from xdsl.interpreters.utils.ptr import TypedPtr
from xdsl.parser import Parser
from xdsl.passes import PassPipeline
from xdsl.transforms.canonicalize import CanonicalizePass
from xdsl.transforms.common_subexpression_elimination import CommonSubexpressionElimination
from xdsl.transforms.convert_linalg_to_loops import ConvertLinalgToLoopsPass
from xdsl.transforms.linalg_generalize_named_ops import LinalgGeneralizeNamedOpsPass
from xdsl.utils.exceptions import DiagnosticException

from kiln.passes.kiln_bufferize import KilnBufferizePass

SOURCE = """
#id = affine_map<(d0) -> (d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @chain(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %t = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %e2 = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%t, %a : tensor<4xf32>, tensor<4xf32>) outs(%e2 : tensor<4xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.mulf %x, %y : f32
    %q = math.exp %s : f32
    linalg.yield %q : f32
  } -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}
func.func @rowsum(%a: tensor<3x5xf64>) -> tensor<3xf64> {
  %z = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<3xf64>
  %f = linalg.fill ins(%z : f64) outs(%e : tensor<3xf64>) -> tensor<3xf64>
  %r = linalg.generic {indexing_maps = [#id2, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<3x5xf64>) outs(%f : tensor<3xf64>) {
  ^bb0(%x: f64, %acc: f64):
    %s = arith.addf %x, %acc : f64
    linalg.yield %s : f64
  } -> tensor<3xf64>
  func.return %r : tensor<3xf64>
}
func.func @mm(%a: tensor<?x3xf64>, %b: tensor<3x4xf64>) -> tensor<?x4xf64> {
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f64
  %m = tensor.dim %a, %c0 : tensor<?x3xf64>
  %e = tensor.empty(%m) : tensor<?x4xf64>
  %f = linalg.fill ins(%z : f64) outs(%e : tensor<?x4xf64>) -> tensor<?x4xf64>
  %r = linalg.matmul ins(%a, %b : tensor<?x3xf64>, tensor<3x4xf64>)
                     outs(%f : tensor<?x4xf64>) -> tensor<?x4xf64>
  func.return %r : tensor<?x4xf64>
}
func.func @caller(%a: tensor<?x3xf64>, %b: tensor<3x4xf64>) -> (tensor<?x4xf64>, tensor<3x4xf64>) {
  %r = func.call @mm(%a, %b) : (tensor<?x3xf64>, tensor<3x4xf64>) -> tensor<?x4xf64>
  %e = tensor.empty() : tensor<3x4xf64>
  %w = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%b : tensor<3x4xf64>) outs(%e : tensor<3x4xf64>) {
  ^bb0(%x: f64, %o: f64):
    %d = arith.addf %x, %x : f64
    linalg.yield %d : f64
  } -> tensor<3x4xf64>
  func.return %r, %b : tensor<?x4xf64>, tensor<3x4xf64>
}
func.func @bcast_slice_reshape(%a: tensor<2x6xf32>, %v: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3x2x2xf32>) {
  %s = tensor.extract_slice %a[0, 1] [2, 3] [1, 2] : tensor<2x6xf32> to tensor<2x3xf32>
  %e = tensor.empty() : tensor<2x3xf32>
  %r = linalg.generic {indexing_maps = [#id2, affine_map<(d0, d1) -> (d1)>, #id2],
                       iterator_types = ["parallel", "parallel"]}
      ins(%s, %v : tensor<2x3xf32>, tensor<3xf32>) outs(%e : tensor<2x3xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.subf %x, %y : f32
    linalg.yield %p : f32
  } -> tensor<2x3xf32>
  %flat = tensor.collapse_shape %a [[0, 1]] : tensor<2x6xf32> into tensor<12xf32>
  %re = tensor.expand_shape %flat [[0, 1, 2]] output_shape [3, 2, 2] : tensor<12xf32> into tensor<3x2x2xf32>
  func.return %r, %re : tensor<2x3xf32>, tensor<3x2x2xf32>
}
func.func @const_inplace(%a: tensor<2xi32>) -> (tensor<2xi32>, tensor<2xi32>) {
  %c = arith.constant dense<[10, 20]> : tensor<2xi32>
  %s = arith.constant dense<3> : tensor<2xi32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %s : tensor<2xi32>, tensor<2xi32>) outs(%c : tensor<2xi32>) {
  ^bb0(%x: i32, %y: i32, %o: i32):
    %m = arith.muli %x, %y : i32
    %p = arith.addi %m, %o : i32
    linalg.yield %p : i32
  } -> tensor<2xi32>
  func.return %r, %c : tensor<2xi32>, tensor<2xi32>
}
func.func @scalar0d(%a: tensor<f32>, %k: f32) -> (tensor<f32>, f32) {
  %e = tensor.empty() : tensor<f32>
  %r = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []}
      ins(%a : tensor<f32>) outs(%e : tensor<f32>) {
  ^bb0(%x: f32, %o: f32):
    %p = arith.mulf %x, %k : f32
    linalg.yield %p : f32
  } -> tensor<f32>
  %x = tensor.extract %a[] : tensor<f32>
  func.return %r, %x : tensor<f32>, f32
}
func.func @reuse(%a: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %p = arith.addf %x, %x : f32
    linalg.yield %p : f32
  } -> tensor<4xf32>
  %u = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<4xf32>) outs(%t : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %p = arith.addf %x, %o : f32
    linalg.yield %p : f32
  } -> tensor<4xf32>
  %w = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%u, %t : tensor<4xf32>, tensor<4xf32>) outs(%u : tensor<4xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    linalg.yield %p : f32
  } -> tensor<4xf32>
  func.return %w : tensor<4xf32>
}
"""


def _context() -> Context:
    ctx = Context()
    for dialect in (Builtin, arith.Arith, func.Func, Linalg, math.Math, memref.MemRef, tensor.Tensor):
        ctx.load_dialect(dialect)
    return ctx


def _parse(ctx: Context) -> ModuleOp:
    return Parser(ctx, SOURCE).parse_module()


def _lower(ctx: Context, module: ModuleOp, loops: bool = True) -> ModuleOp:
    passes = [KilnBufferizePass()]
    if loops:
        passes += [
            LinalgGeneralizeNamedOpsPass(),
            ConvertLinalgToLoopsPass(),
            CanonicalizePass(),
            CommonSubexpressionElimination(),
        ]
    PassPipeline(tuple(passes)).apply(ctx, module)
    module.verify()
    return module


# -- interpreter overlay -------------------------------------------------------


class StridedArray(ShapedArray[Any]):
    """A strided view sharing its source's storage (memref.subview)."""

    def __init__(self, data: TypedPtr[Any], shape: list[int], strides: list[int], base: int):
        super().__init__(data, shape)
        self.strides = strides
        self.base = base

    def offset(self, index: Any) -> int:
        return self.base + sum(i * s for i, s in zip(index, self.strides, strict=True))


def _strides(array: ShapedArray[Any]) -> tuple[list[int], int]:
    if isinstance(array, StridedArray):
        return array.strides, array.base
    strides = [prod(array.shape[d + 1 :]) for d in range(len(array.shape))]
    return strides, 0


def _structured(interp: Interpreter, op: Any, args: tuple[Any, ...]) -> tuple[Any, ...]:
    """linalg structured op semantics, with every output written (upstream stores only outs[0])."""
    n_ins = len(op.inputs)
    outs = [a.copy() if op.results else a for a in args[n_ins:]]
    operands = [*args[:n_ins], *outs]
    maps = [m.data for m in op.get_indexing_maps()]
    shapes = [d for a in operands if isinstance(a, ShapedArray) for d in a.shape]
    ranges = op.get_shapes_to_loops_map().eval(shapes, [])
    for ind in product(*(range(r) for r in ranges)):
        scalars = [
            a.load(m.eval(ind, ())) if isinstance(a, ShapedArray) else a
            for a, m in zip(operands, maps, strict=True)
        ]
        values = interp.run_ssacfg_region(op.body, tuple(scalars), "linalg")
        for out, m, v in zip(outs, maps[n_ins:], values, strict=True):
            out.store(m.eval(ind, ()), v)
    return tuple(outs) if op.results else ()


@register_impls
class Overlay(InterpreterFunctions):
    """Ops upstream's interpreter lacks or gets wrong, enough for kiln-bufferize's tests."""

    @impl(linalg.GenericOp)
    def run_generic(self, interp: Interpreter, op: Any, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return _structured(interp, op, args)

    @impl(linalg.MatmulOp)
    def run_matmul(self, interp: Interpreter, op: Any, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return _structured(interp, op, args)

    @impl(linalg.FillOp)
    def run_fill(self, interp: Interpreter, op: Any, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return _structured(interp, op, args)

    @impl(arith.ConstantOp)
    def run_constant(self, interp: Interpreter, op: arith.ConstantOp, args: tuple[Any, ...]):
        value = op.value
        if isinstance(value, DenseIntOrFPElementsAttr):
            assert isinstance(value.type, TensorType)
            xtype = xtype_for_el_type(value.get_element_type(), interp.index_bitwidth)
            data = list(value.get_values())
            return (ShapedArray(TypedPtr.new(data, xtype=xtype), list(value.type.get_shape())),)
        return (value.value.data,)  # pyright: ignore

    @impl(arith.DivfOp)
    def run_divf(self, interp: Interpreter, op: Any, args: tuple[Any, ...]):
        return (args[0] / args[1],)

    @impl(tensor.ExtractSliceOp)
    def run_extract_slice(self, interp: Interpreter, op: tensor.ExtractSliceOp, args: tuple[Any, ...]):
        view = _subview(args[0], op.static_offsets.get_values(), op.static_sizes.get_values(),
                        op.static_strides.get_values(), op.result.type)
        result = ShapedArray(TypedPtr.new([view.load(i) for i in view.indices()],
                                          xtype=args[0].element_type), view.shape)
        return (result,)

    @impl(tensor.CollapseShapeOp)
    def run_collapse(self, interp: Interpreter, op: Any, args: tuple[Any, ...]):
        return (args[0].with_shape(op.result.type.get_shape()),)

    @impl(tensor.ExpandShapeOp)
    def run_expand(self, interp: Interpreter, op: Any, args: tuple[Any, ...]):
        return (args[0].with_shape(op.result.type.get_shape()),)

    @impl(memref.AllocOp)
    def run_alloc(self, interp: Interpreter, op: memref.AllocOp, args: tuple[Any, ...]):
        dynamic = iter(args)
        shape = [next(dynamic) if d == -1 else d for d in op.memref.type.get_shape()]
        xtype = xtype_for_el_type(op.memref.type.get_element_type(), interp.index_bitwidth)
        return (ShapedArray(TypedPtr.zeros(prod(shape), xtype=xtype), shape),)

    @impl(memref.DimOp)
    def run_dim(self, interp: Interpreter, op: Any, args: tuple[Any, ...]):
        return (args[0].shape[args[1]],)

    @impl(memref.SubviewOp)
    def run_subview(self, interp: Interpreter, op: memref.SubviewOp, args: tuple[Any, ...]):
        return (_subview(args[0], op.static_offsets.get_values(), op.static_sizes.get_values(),
                         op.static_strides.get_values(), op.result.type),)

    @impl(memref.CollapseShapeOp)
    def run_memref_collapse(self, interp: Interpreter, op: Any, args: tuple[Any, ...]):
        assert not isinstance(args[0], StridedArray), "kiln-bufferize collapses only contiguous buffers"
        return (ShapedArray(args[0].data_ptr, list(op.result.type.get_shape())),)

    @impl(memref.ExpandShapeOp)
    def run_memref_expand(self, interp: Interpreter, op: Any, args: tuple[Any, ...]):
        assert not isinstance(args[0], StridedArray), "kiln-bufferize expands only contiguous buffers"
        return (ShapedArray(args[0].data_ptr, list(op.result.type.get_shape())),)


def _subview(source: ShapedArray[Any], offsets: Any, sizes: Any, steps: Any,
             result_type: Any) -> StridedArray:
    strides, base = _strides(source)
    base += sum(o * s for o, s in zip(offsets, strides, strict=True))
    kept = [d for d, n in enumerate(sizes) if n != 1 or len(sizes) == len(result_type.get_shape())]
    return StridedArray(source.data_ptr, [sizes[d] for d in kept],
                        [strides[d] * steps[d] for d in kept], base)


def _interpreter(ctx: Context, module: ModuleOp) -> Interpreter:
    interp = Interpreter(module)
    register_implementations(interp, ctx)
    interp.register_implementations(MathFunctions())
    interp.register_implementations(Overlay(), override=True)
    return interp


# -- running both levels ---------------------------------------------------------

def _to_array(x: np.ndarray[Any, Any]) -> ShapedArray[Any]:
    ptr = {
        np.float32: TypedPtr.new_float32, np.float64: TypedPtr.new_float64,
        np.int32: TypedPtr.new_int32, np.int64: TypedPtr.new_int64,
    }[x.dtype.type]
    return ShapedArray(ptr([v.item() for v in x.reshape(-1)]), list(x.shape))


def _from_array(a: ShapedArray[Any], dtype: Any) -> np.ndarray[Any, Any]:
    return np.array(a.data, dtype=dtype).reshape(a.shape)


def _run_tensor_level(name: str, inputs: list[Any]) -> list[Any]:
    ctx = _context()
    module = _parse(ctx)
    args = [_to_array(x) if isinstance(x, np.ndarray) else x for x in inputs]
    results = _interpreter(ctx, module).call_op(name, tuple(args))
    return [_from_array(r, np.asarray(e).dtype) if isinstance(r, ShapedArray) else r
            for r, e in zip(results, _expected(name, inputs), strict=True)]


def _run_buffer_level(name: str, inputs: list[Any]) -> list[Any]:
    ctx = _context()
    module = _lower(ctx, _parse(ctx))
    fn = next(f for f in module.ops if isinstance(f, func.FuncOp) and f.sym_name.data == name)
    args = [_to_array(x) if isinstance(x, np.ndarray) else x for x in inputs]
    expected = _expected(name, inputs)
    out_types = fn.function_type.inputs.data[len(inputs):]
    outs: list[ShapedArray[Any]] = []
    for t, e in zip(out_types, [e for e in expected if isinstance(e, np.ndarray)], strict=True):
        assert isinstance(t, MemRefType)
        outs.append(_to_array(np.zeros(e.shape, dtype=e.dtype)))
    scalars = iter(_interpreter(ctx, module).call_op(name, (*args, *outs)))
    buffers = iter(outs)
    return [_from_array(next(buffers), e.dtype) if isinstance(e, np.ndarray) else next(scalars)
            for e in expected]


def _expected(name: str, inputs: list[Any]) -> list[Any]:
    a = inputs[0]
    match name:
        case "chain":
            return [np.exp((a + inputs[1]) * a)]
        case "rowsum":
            return [a.sum(axis=1)]
        case "mm":
            return [a @ inputs[1]]
        case "caller":
            return [a @ inputs[1], inputs[1]]
        case "bcast_slice_reshape":
            return [a[:, 1:6:2] - inputs[1], a.reshape(3, 2, 2)]
        case "const_inplace":
            return [a * 3 + np.array([10, 20], dtype=np.int32), np.array([10, 20], dtype=np.int32)]
        case "scalar0d":
            return [np.asarray(a * np.float32(inputs[1])), float(a)]
        case "reuse":
            return [(a + a + a) * (a + a)]
    raise AssertionError(name)


_rng = np.random.default_rng(0)
CASES = {
    "chain": [_rng.standard_normal(4).astype(np.float32), _rng.standard_normal(4).astype(np.float32)],
    "rowsum": [_rng.standard_normal((3, 5))],
    "mm": [_rng.standard_normal((2, 3)), _rng.standard_normal((3, 4))],
    "caller": [_rng.standard_normal((5, 3)), _rng.standard_normal((3, 4))],
    "bcast_slice_reshape": [_rng.standard_normal((2, 6)).astype(np.float32),
                            _rng.standard_normal(3).astype(np.float32)],
    "const_inplace": [np.array([4, -7], dtype=np.int32)],
    "scalar0d": [np.array(1.5, dtype=np.float32), 2.0],
    "reuse": [_rng.standard_normal(4).astype(np.float32)],
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_both_levels_match_numpy(name: str) -> None:
    inputs = CASES[name]
    expected = _expected(name, inputs)
    for level in (_run_tensor_level, _run_buffer_level):
        for got, want in zip(level(name, inputs), expected, strict=True):
            np.testing.assert_allclose(got, want, rtol=1e-5, err_msg=f"{level.__name__} {name}")


# -- structure ---------------------------------------------------------------------


def test_no_tensors_and_no_leaks() -> None:
    ctx = _context()
    module = _lower(ctx, _parse(ctx), loops=False)
    for op in module.walk():
        for value in (*op.operands, *op.results):
            assert not isinstance(value.type, TensorType), op.name
        if isinstance(op, func.FuncOp):
            assert all(not isinstance(t, TensorType) for t in op.function_type.outputs)
        if isinstance(op, memref.AllocOp):
            freed = [u.operation for u in op.memref.uses if isinstance(u.operation, memref.DeallocOp)]
            assert len(freed) == 1, f"alloc without exactly one dealloc in {op.parent_op()}"


def test_loops_level_has_only_loop_dialects() -> None:
    ctx = _context()
    module = _lower(ctx, _parse(ctx))
    dialects = {op.dialect_name() for op in module.walk()}
    assert dialects <= {"builtin", "func", "scf", "arith", "math", "memref"}, dialects


def test_returned_generic_allocates_nothing() -> None:
    ctx = _context()
    module = _lower(ctx, _parse(ctx), loops=False)
    fns = {f.sym_name.data: f for f in module.ops if isinstance(f, func.FuncOp)}
    allocs = {n: sum(isinstance(o, memref.AllocOp) for o in f.walk()) for n, f in fns.items()}
    assert allocs["chain"] == 1  # the intermediate only
    assert allocs["rowsum"] == 0 and allocs["mm"] == 0 and allocs["scalar0d"] == 0
    assert allocs["caller"] == 1  # the unused generic still writes somewhere: a temporary


def test_locations_are_kept() -> None:
    ctx = _context()
    src = 'func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> { func.return %a : tensor<2xf32> loc("r.py":3:4) }'
    module = Parser(ctx, src).parse_module()
    _lower(ctx, module, loops=False)
    copy = next(o for o in module.walk() if isinstance(o, linalg.GenericOp))
    assert "r.py" in str(copy.location)


def test_unsupported_op_is_named() -> None:
    ctx = _context()
    src = """func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
      %p = tensor.pad %a low[1] high[1] {
      ^bb0(%i: index):
        %z = arith.constant 0.0 : f32
        tensor.yield %z : f32
      } : tensor<4xf32> to tensor<6xf32>
      %s = tensor.extract_slice %p[0] [4] [1] : tensor<6xf32> to tensor<4xf32>
      func.return %s : tensor<4xf32>
    }"""
    module = Parser(ctx, src).parse_module()
    with pytest.raises(DiagnosticException, match="tensor.pad"):
        _lower(ctx, module, loops=False)


def test_block_order_lists_the_ops_between_two_positions_as_its_index_says() -> None:
    """BlockOrder.between (asked per in-place write, instead of going through the whole block's
    index) gives the ops whose index lies strictly between two positions, replacing ops included."""
    from xdsl.dialects.builtin import FloatAttr, f64
    from xdsl.ir import Block

    from kiln.passes.bufferize.analysis import BlockOrder

    block = Block()
    ops = [arith.ConstantOp(FloatAttr(float(i), f64)) for i in range(6)]
    block.add_ops(ops)
    order = BlockOrder(block)
    new = arith.ConstantOp(FloatAttr(9.0, f64))
    block.insert_op_before(new, ops[3])
    order.take_place(new, ops[3])
    for start, end in ((0, 5), (1, 4), (2, 3), (3, 3), (-1, 6)):
        want = {o for o, at in order.index.items() if start < at < end}
        assert set(order.between(start, end)) == want
    assert new in order.between(2, 4) and order.index[new] == 3


def test_a_loop_frees_the_buffers_it_does_not_pass_on_in_their_order() -> None:
    """A staged loop carrying six arrays whose sizes change: each iteration frees the six buffers
    it received, in the order of the loop's arguments (they were freed in a set's order, which
    object addresses decide: the same function gave different C in different processes)."""
    import re

    import kiln

    def f(x: np.ndarray, n: np.ndarray) -> np.ndarray:
        a, b, c, d, e, g = x[x > 0.0], x[x > 0.1], x[x > 0.2], x[x > 0.3], x[x > 0.4], x[x > 0.5]
        i = 0
        while i < n:
            a, b, c, d, e, g = a[a > 0.15], b[b > 0.25], c[c > 0.35], d[d > 0.45], e[e > 0.55], g[g > 0.65]
            i += 1
        return a.sum() + b.sum() + c.sum() + d.sum() + e.sum() + g.sum()

    x, n = np.linspace(0.0, 1.0, 50), np.array(3)
    compiled = kiln.function(f)
    np.testing.assert_allclose(compiled(x, n), f(x, n), rtol=1e-12)
    text = compiled.get_concrete_function(x, n).lowered("buffer")
    freed = [int(m.group(1)) for m in re.finditer(r"memref\.dealloc %(\d+) : memref<\?xf64>", text)]
    windows = [freed[k:k + 6] for k in range(len(freed) - 5)]
    together = [w for w in windows if sorted(w) == list(range(min(w), min(w) + 6))]  # six block arguments in a row
    assert together, freed
    assert all(w == sorted(w) for w in together), freed
