# RUN: %python %s | filecheck %s
"""What the wider NumPy API traces to: argmax, cumsum, sort and counting are one op each;
triangles compare row and column positions; tensordot and einsum are matmuls of transposed,
reshaped operands."""

import numpy as np
from xdsl.dialects.builtin import TensorType, f32, i32, i64

from kiln.frontend.pytree import TENSOR_SLOT
from kiln.frontend.tracer import trace_graph


def show(fn, *types):
    print(trace_graph(fn, [TENSOR_SLOT] * len(types), {}, list(types), fn.__name__).module)


def reductions(x):
    return np.argmax(x, axis=1), np.cumsum(x, axis=0), np.sort(x), np.argsort(x, axis=0, kind="stable")


# CHECK-LABEL: func.func public @reductions(%0: tensor<3x4xi32>)
# CHECK-NEXT:    %[[A:.*]] = graph.argreduce "max", %0 axis 1 : tensor<3x4xi32> -> tensor<3xi64>
# CHECK-NEXT:    %[[W:.*]] = graph.cast %0 : tensor<3x4xi32> -> tensor<3x4xi64>
# CHECK-NEXT:    %[[C:.*]] = graph.scan "add", %[[W]] axis 0 : tensor<3x4xi64> -> tensor<3x4xi64>
# CHECK-NEXT:    %[[S:.*]] = graph.sort %0 axis 1 : tensor<3x4xi32> -> tensor<3x4xi32>
# CHECK-NEXT:    %[[P:.*]] = graph.argsort %0 axis 0 : tensor<3x4xi32> -> tensor<3x4xi64>
# CHECK-NEXT:    func.return %[[A]], %[[C]], %[[S]], %[[P]]
show(reductions, TensorType(i32, [3, 4]))


def counting(x, edges):
    return np.bincount(x, minlength=5), np.searchsorted(edges, 2.5, side="right")


# CHECK-LABEL: func.func public @counting
# CHECK-NEXT:    %[[B:.*]] = graph.bincount %0 : (tensor<9xi64>) -> tensor<5xi64>
# CHECK-NEXT:    %[[V:.*]] = graph.constant dense<2.500000e+00> : tensor<f32>
# CHECK-NEXT:    graph.searchsorted "right", %1, %[[V]] : (tensor<6xf32>, tensor<f32>) -> tensor<i64>
show(counting, TensorType(i64, [9]), TensorType(f32, [6]))


def lower(m):
    return np.tril(m, -1)


# CHECK-LABEL: func.func public @lower
# CHECK-DAG:     graph.constant dense<[0, 1, 2, 3]> : tensor<4xi64>
# CHECK-DAG:     graph.constant dense<[0, 1, 2]> : tensor<3xi64>
# CHECK:         graph.sub {{.*}} : tensor<3x4xi64>
# CHECK:         graph.cmp "le", {{.*}} : tensor<3x4xi64> -> tensor<3x4xi1>
# CHECK:         graph.select
show(lower, TensorType(f32, [3, 4]))


def long_lower(m):
    return np.tril(m)


# Positions beyond 64 are an add-scan of ones, not a constant as long as the axis.
# CHECK-LABEL: func.func public @long_lower
# CHECK:         graph.scan "add", {{.*}} axis 0 : tensor<100xi64> -> tensor<100xi64>
# CHECK-NOT:     dense<[
show(long_lower, TensorType(f32, [100, 100]))


def contractions(a, b):
    return np.tensordot(a, b, axes=([0, 2], [1, 0])), np.einsum("bij,bjk->bik", a, a.transpose(0, 2, 1))


# CHECK-LABEL: func.func public @contractions
# CHECK:         graph.transpose %0 perm array<i64: 1, 0, 2> : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
# CHECK-NEXT:    graph.transpose %1 perm array<i64: 1, 0, 2> : tensor<4x2x5xf32> -> tensor<2x4x5xf32>
# CHECK-NEXT:    graph.reshape {{.*}} : tensor<3x2x4xf32> -> tensor<3x8xf32>
# CHECK-NEXT:    graph.reshape {{.*}} : tensor<2x4x5xf32> -> tensor<8x5xf32>
# CHECK-NEXT:    graph.matmul {{.*}} : (tensor<3x8xf32>, tensor<8x5xf32>) -> tensor<3x5xf32>
# CHECK:         graph.matmul {{.*}} : (tensor<2x3x4xf32>, tensor<2x4x3xf32>) -> tensor<2x3x3xf32>
show(contractions, TensorType(f32, [2, 3, 4]), TensorType(f32, [4, 2, 5]))
