# RUN: %python %s | filecheck %s
"""Basic indexing: one graph.slice (start/stride per axis, size in the type) plus a graph.reshape."""

from xdsl.dialects.builtin import TensorType, f32

from kiln.frontend.pytree import TENSOR_SLOT
from kiln.frontend.tracer import trace_graph


def show(fn, *types):
    print(trace_graph(fn, [TENSOR_SLOT] * len(types), {}, list(types), fn.__name__).module)


def columns(x):
    return x[:, 0:10]


# CHECK-LABEL: func.func public @columns(%0: tensor<4x16xf32>) -> tensor<4x10xf32>
# CHECK-NEXT:    %[[S:.*]] = graph.slice %0 start array<i64: 0, 0> stride array<i64: 1, 1> : tensor<4x16xf32> -> tensor<4x10xf32>
# CHECK-NEXT:    func.return %[[S]]
show(columns, TensorType(f32, [4, 16]))


def row(x):
    return x[1]


# An integer index is a size-1 slice whose axis the reshape drops.
# CHECK-LABEL: func.func public @row(%0: tensor<4x16xf32>) -> tensor<16xf32>
# CHECK-NEXT:    %[[S:.*]] = graph.slice %0 start array<i64: 1, 0> stride array<i64: 1, 1> : tensor<4x16xf32> -> tensor<1x16xf32>
# CHECK-NEXT:    %[[R:.*]] = graph.reshape %[[S]] : tensor<1x16xf32> -> tensor<16xf32>
# CHECK-NEXT:    func.return %[[R]]
show(row, TensorType(f32, [4, 16]))


def negative(x):
    return x[-1, ::-2], x[..., None, 3:1:-1]


# CHECK-LABEL: func.func public @negative
# CHECK-NEXT:    %[[A:.*]] = graph.slice %0 start array<i64: 3, 15> stride array<i64: 1, -2> : tensor<4x16xf32> -> tensor<1x8xf32>
# CHECK-NEXT:    graph.reshape %[[A]] : tensor<1x8xf32> -> tensor<8xf32>
# CHECK-NEXT:    %[[B:.*]] = graph.slice %0 start array<i64: 0, 3> stride array<i64: 1, -1> : tensor<4x16xf32> -> tensor<4x2xf32>
# CHECK-NEXT:    graph.reshape %[[B]] : tensor<4x2xf32> -> tensor<4x1x2xf32>
show(negative, TensorType(f32, [4, 16]))


def whole(x):
    return x[:, ...], x[None]


# Indexing that keeps every element emits no slice.
# CHECK-LABEL: func.func public @whole
# CHECK-NOT:     graph.slice
# CHECK:         %[[R:.*]] = graph.reshape %0 : tensor<4x16xf32> -> tensor<1x4x16xf32>
# CHECK-NEXT:    func.return %0, %[[R]]
show(whole, TensorType(f32, [4, 16]))
