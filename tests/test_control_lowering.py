"""Control flow, dynamic rows, prints and variables: hand-written graph IR compiled to C
through every stage, checked by value (the frontend that emits these ops is tested elsewhere)."""

from __future__ import annotations

import resource
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.parser import Parser

from kiln.backends.c.emitter import emit_c
from kiln.backends.c.toolchain import compile_shared
from kiln.backends.loader import load_function, signature_of
from kiln.universe import make_context, run_stage


def compile_ir(text: str) -> dict[str, Callable[..., Any]]:
    """Every function of ``text`` lowered graph -> C, compiled and loaded."""
    ctx = make_context()
    module = Parser(ctx, text).parse_module()
    for stage in ("tensor", "buffer", "loops"):
        run_stage(ctx, module, stage)
    so = compile_shared(emit_c(module))
    return {
        op.sym_name.data: load_function(so, op.sym_name.data, signature_of(op))
        for op in module.ops
        if isinstance(op, func.FuncOp)
    }


def i64(value: int) -> np.ndarray:
    return np.array(value, dtype=np.int64)


COLLATZ = """
func.func @collatz(%n: tensor<i64>) -> tensor<i64> {
  %z = graph.constant dense<0> : tensor<i64>
  %w:2 = graph.while (%n, %z) : (tensor<i64>, tensor<i64>) -> (tensor<i64>, tensor<i64>) cond {
  ^bb0(%x: tensor<i64>, %s: tensor<i64>):
    %one = graph.constant dense<1> : tensor<i64>
    %c = graph.cmp "gt", %x, %one : tensor<i64> -> tensor<i1>
    graph.condition %c, %x, %s : tensor<i64>, tensor<i64>
  } do {
  ^bb0(%x: tensor<i64>, %s: tensor<i64>):
    %two = graph.constant dense<2> : tensor<i64>
    %one = graph.constant dense<1> : tensor<i64>
    %zero = graph.constant dense<0> : tensor<i64>
    %r = graph.mod %x, %two : tensor<i64>
    %even = graph.cmp "eq", %r, %zero : tensor<i64> -> tensor<i1>
    %nx = graph.cond %even -> (tensor<i64>) {
      %h = graph.floordiv %x, %two : tensor<i64>
      graph.yield %h : tensor<i64>
    } else {
      %three = graph.constant dense<3> : tensor<i64>
      %t = graph.mul %x, %three : tensor<i64>
      %t1 = graph.add %t, %one : tensor<i64>
      graph.yield %t1 : tensor<i64>
    }
    %s1 = graph.add %s, %one : tensor<i64>
    graph.yield %nx, %s1 : tensor<i64>, tensor<i64>
  }
  func.return %w#1 : tensor<i64>
}
"""


def collatz_steps(n: int) -> int:
    steps = 0
    while n > 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


def test_collatz_while_with_nested_cond() -> None:
    f = compile_ir(COLLATZ)["collatz"]
    for n in (1, 2, 6, 27, 97, 871):
        out = i64(0)
        f(i64(n), out)
        assert out == collatz_steps(n)


SWAP = """
func.func @swap(%a: tensor<3xf32>, %b: tensor<3xf32>, %n: tensor<i64>) -> (tensor<3xf32>, tensor<3xf32>) {
  %w:3 = graph.while (%a, %b, %n) : (tensor<3xf32>, tensor<3xf32>, tensor<i64>) -> (tensor<3xf32>, tensor<3xf32>, tensor<i64>) cond {
  ^bb0(%x: tensor<3xf32>, %y: tensor<3xf32>, %i: tensor<i64>):
    %z = graph.constant dense<0> : tensor<i64>
    %c = graph.cmp "gt", %i, %z : tensor<i64> -> tensor<i1>
    graph.condition %c, %x, %y, %i : tensor<3xf32>, tensor<3xf32>, tensor<i64>
  } do {
  ^bb0(%x: tensor<3xf32>, %y: tensor<3xf32>, %i: tensor<i64>):
    %one = graph.constant dense<1> : tensor<i64>
    %j = graph.sub %i, %one : tensor<i64>
    %x2 = graph.add %x, %x : tensor<3xf32>
    graph.yield %y, %x2, %j : tensor<3xf32>, tensor<3xf32>, tensor<i64>
  }
  func.return %w#0, %w#1 : tensor<3xf32>, tensor<3xf32>
}
"""


def test_while_swapping_carried_tensors() -> None:
    f = compile_ir(SWAP)["swap"]
    a, b = np.array([1, 2, 3], np.float32), np.array([10, 20, 30], np.float32)
    out0, out1 = np.zeros(3, np.float32), np.zeros(3, np.float32)
    f(a, b, i64(3), out0, out1)
    x, y = a.copy(), b.copy()
    for _ in range(3):
        x, y = y, x + x
    np.testing.assert_array_equal(out0, x)
    np.testing.assert_array_equal(out1, y)
    np.testing.assert_array_equal(a, [1, 2, 3])  # arguments are never written


BIG_LOOP = """
func.func @loop(%x: tensor<1000xf32>, %n: tensor<i64>) -> tensor<1000xf32> {
  %z = graph.constant dense<0> : tensor<i64>
  %w:2 = graph.while (%x, %z) : (tensor<1000xf32>, tensor<i64>) -> (tensor<1000xf32>, tensor<i64>) cond {
  ^bb0(%a: tensor<1000xf32>, %i: tensor<i64>):
    %c = graph.cmp "lt", %i, %n : tensor<i64> -> tensor<i1>
    graph.condition %c, %a, %i : tensor<1000xf32>, tensor<i64>
  } do {
  ^bb0(%a: tensor<1000xf32>, %i: tensor<i64>):
    %one = graph.constant dense<1> : tensor<i64>
    %j = graph.add %i, %one : tensor<i64>
    %h = graph.constant dense<0.5> : tensor<1000xf32>
    %m = graph.mul %a, %h : tensor<1000xf32>
    %b = graph.add %m, %h : tensor<1000xf32>
    graph.yield %b, %j : tensor<1000xf32>, tensor<i64>
  }
  func.return %w#0 : tensor<1000xf32>
}
"""


def _rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize()


def test_million_iterations_keep_memory_flat() -> None:
    f = compile_ir(BIG_LOOP)["loop"]
    x = np.arange(1000, dtype=np.float32)
    out = np.zeros(1000, np.float32)
    f(x, i64(10), out)  # warm up the allocator
    before = _rss_bytes()
    f(x, i64(1_000_000), out)
    grown = _rss_bytes() - before
    assert grown < 4 * 2**20, f"RSS grew by {grown} bytes over 10^6 iterations"
    np.testing.assert_allclose(out, np.ones(1000, np.float32), rtol=1e-6)  # fixed point of a/2 + 1/2


ROWS = """
func.func @rows(%x: tensor<5x3xf32>, %i: tensor<i64>, %r: tensor<3xf32>) -> (tensor<3xf32>, tensor<5x3xf32>) {
  %g = graph.gather_row %x[%i] : tensor<5x3xf32>, tensor<i64> -> tensor<3xf32>
  %s = graph.scatter_row %r into %x[%i] : tensor<3xf32>, tensor<5x3xf32>, tensor<i64>
  func.return %g, %s : tensor<3xf32>, tensor<5x3xf32>
}
func.func @elem(%x: tensor<4xi32>, %i: tensor<i32>) -> tensor<i32> {
  %g = graph.gather_row %x[%i] : tensor<4xi32>, tensor<i32> -> tensor<i32>
  func.return %g : tensor<i32>
}
"""


@pytest.mark.parametrize("index", [0, 2, 4, -1, -5, 7, -9])
def test_gather_scatter_rows(index: int) -> None:
    fns = compile_ir(ROWS)
    x = np.arange(15, dtype=np.float32).reshape(5, 3)
    row = np.array([-1, -2, -3], np.float32)
    got, scattered = np.zeros(3, np.float32), np.zeros((5, 3), np.float32)
    fns["rows"](x, i64(index), row, got, scattered)
    k = min(max(index + 5 if index < 0 else index, 0), 4)  # wrap negatives, then clamp
    np.testing.assert_array_equal(got, x[k])
    expected = x.copy()
    expected[k] = row
    np.testing.assert_array_equal(scattered, expected)
    np.testing.assert_array_equal(x, np.arange(15, dtype=np.float32).reshape(5, 3))
    out = np.zeros((), np.int32)
    fns["elem"](np.array([5, 6, 7, 8], np.int32), np.array(index, np.int32), out)
    assert out == [5, 6, 7, 8][min(max(index + 4 if index < 0 else index, 0), 3)]


_ELEMENT = {"float32": "f32", "float64": "f64", "int64": "i64", "int32": "i32", "bool": "i1"}


def tensor_type(a: np.ndarray) -> str:
    return "tensor<" + "".join(f"{d}x" for d in a.shape) + _ELEMENT[a.dtype.name] + ">"


PRINTED = [
    np.array([1, 2.5, 3], np.float32),
    np.array([0.1, 0.2, 0.3], np.float32),
    np.array([1e-5, 1.0]),
    np.array([np.nan, np.inf, -np.inf, 1.5]),
    np.array([[1.5, 2], [3, 4]]),
    np.arange(30, dtype=np.float64),
    np.random.default_rng(0).standard_normal((3, 2, 2)),
    np.random.default_rng(1).standard_normal(40).astype(np.float32) * 1e-3,
    np.array([1, -20, 300]),
    np.arange(12, dtype=np.int32).reshape(3, 4),
    np.array([True, False, True]),
    np.array(0.1, np.float32),
    np.array(1 / 3),
    np.array(-0.0),
    np.array(1e20, np.float32),
    np.array(-5),
    np.array(True),
]


def test_prints_match_numpy_str(capsys: pytest.CaptureFixture[str]) -> None:
    text = "".join(
        f'func.func @p{k}(%a: {tensor_type(a)}) {{\n'
        f'  graph.print "v{k} = {{}}!\\n" (%a : {tensor_type(a)})\n  func.return\n}}\n'
        for k, a in enumerate(PRINTED)
    )
    fns = compile_ir(text)
    for k, a in enumerate(PRINTED):
        print("before")
        fns[f"p{k}"](a)
        print("after")
        assert capsys.readouterr().out == f"before\nv{k} = {a!s}!\nafter\n"


VARIABLES = """
func.func @step(%v: !graph.resource<tensor<3xf32>>, %x: tensor<3xf32>) -> tensor<3xf32> {
  %old = graph.read %v : !graph.resource<tensor<3xf32>> -> tensor<3xf32>
  graph.print "before {}\\n" (%old : tensor<3xf32>)
  %new = graph.add %old, %x : tensor<3xf32>
  graph.assign %new to %v : tensor<3xf32> to !graph.resource<tensor<3xf32>>
  %now = graph.read %v : !graph.resource<tensor<3xf32>> -> tensor<3xf32>
  graph.print "after {}\\n" (%now : tensor<3xf32>)
  graph.print "after {}\\n" (%now : tensor<3xf32>)
  func.return %old : tensor<3xf32>
}
func.func @set(%v: !graph.resource<tensor<3xf32>>, %x: tensor<3xf32>) {
  graph.assign %x to %v : tensor<3xf32> to !graph.resource<tensor<3xf32>>
  func.return
}
func.func @count(%v: !graph.resource<tensor<i64>>, %n: tensor<i64>) {
  %w = graph.while (%n) : (tensor<i64>) -> (tensor<i64>) cond {
  ^bb0(%i: tensor<i64>):
    %z = graph.constant dense<0> : tensor<i64>
    %c = graph.cmp "gt", %i, %z : tensor<i64> -> tensor<i1>
    graph.condition %c, %i : tensor<i64>
  } do {
  ^bb0(%i: tensor<i64>):
    %one = graph.constant dense<1> : tensor<i64>
    %old = graph.read %v : !graph.resource<tensor<i64>> -> tensor<i64>
    %new = graph.add %old, %one : tensor<i64>
    graph.assign %new to %v : tensor<i64> to !graph.resource<tensor<i64>>
    %j = graph.sub %i, %one : tensor<i64>
    graph.yield %j : tensor<i64>
  }
  func.return
}
"""


def test_variables_persist_across_calls_in_program_order(capsys: pytest.CaptureFixture[str]) -> None:
    fns = compile_ir(VARIABLES)
    var = np.array([1, 2, 3], np.float32)
    x = np.array([10, 10, 10], np.float32)
    old = np.zeros(3, np.float32)
    fns["step"](var, x, old)
    np.testing.assert_array_equal(old, [1, 2, 3])  # the read happened before the assign
    np.testing.assert_array_equal(var, [11, 12, 13])  # written in place
    fns["step"](var, x, old)
    np.testing.assert_array_equal(old, [11, 12, 13])
    np.testing.assert_array_equal(var, [21, 22, 23])
    assert capsys.readouterr().out == (
        "before [1. 2. 3.]\nafter [11. 12. 13.]\nafter [11. 12. 13.]\n"
        "before [11. 12. 13.]\nafter [21. 22. 23.]\nafter [21. 22. 23.]\n"
    )
    fns["set"](var, np.zeros(3, np.float32))  # an assign whose result nothing uses
    np.testing.assert_array_equal(var, [0, 0, 0])
    counter = np.array(5, np.int64)
    fns["count"](counter, i64(1000))
    fns["count"](counter, i64(7))
    assert counter == 1012
