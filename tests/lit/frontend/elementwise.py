# RUN: %python %s | filecheck %s
"""Elementwise ops: NumPy broadcasting and promotion become explicit graph.broadcast / graph.cast."""

import numpy as np
from xdsl.dialects.builtin import TensorType, f32, f64, i1, i32, i64

from kiln.frontend.pytree import TENSOR_SLOT
from kiln.frontend.tracer import trace_graph


def show(fn, *types):
    print(trace_graph(fn, [TENSOR_SLOT] * len(types), {}, list(types), fn.__name__).module)


def add_bias(x, b):
    return x + b


# CHECK-LABEL: func.func public @add_bias(%0: tensor<2x3xf32>, %1: tensor<3xf32>) -> tensor<2x3xf32>
# CHECK-NEXT:    %[[B:.*]] = graph.broadcast %1 : tensor<3xf32> -> tensor<2x3xf32>
# CHECK-NEXT:    %[[S:.*]] = graph.add %0, %[[B]] : tensor<2x3xf32>
# CHECK-NEXT:    func.return %[[S]] : tensor<2x3xf32>
show(add_bias, TensorType(f32, [2, 3]), TensorType(f32, [3]))


def same_shape(x, y):
    return x * y


# CHECK-LABEL: func.func public @same_shape
# CHECK-NOT:     graph.broadcast
# CHECK-NOT:     graph.cast
# CHECK:         graph.mul %0, %1 : tensor<4xf64>
show(same_shape, TensorType(f64, [4]), TensorType(f64, [4]))


def promote(x, y):
    return x - y


# int32 - float32 computes in float64, as NumPy does.
# CHECK-LABEL: func.func public @promote(%0: tensor<3xi32>, %1: tensor<3xf32>) -> tensor<3xf64>
# CHECK-NEXT:    %[[A:.*]] = graph.cast %0 : tensor<3xi32> -> tensor<3xf64>
# CHECK-NEXT:    %[[B:.*]] = graph.cast %1 : tensor<3xf32> -> tensor<3xf64>
# CHECK-NEXT:    %{{.*}} = graph.sub %[[A]], %[[B]] : tensor<3xf64>
show(promote, TensorType(i32, [3]), TensorType(f32, [3]))


def weak_scalars(x, n):
    return x * 2.0, n * 2, n * 2.5


# Python scalars are weak: float32 * 2.0 stays float32, int32 * 2 stays int32, int32 * 2.5 is float64.
# CHECK-LABEL: func.func public @weak_scalars(%0: tensor<3xf32>, %1: tensor<3xi32>) -> (tensor<3xf32>, tensor<3xi32>, tensor<3xf64>)
# CHECK-NEXT:    %[[C1:.*]] = graph.constant dense<2.000000e+00> : tensor<f32>
# CHECK-NEXT:    %[[B1:.*]] = graph.broadcast %[[C1]] : tensor<f32> -> tensor<3xf32>
# CHECK-NEXT:    %[[R1:.*]] = graph.mul %0, %[[B1]] : tensor<3xf32>
# CHECK-NEXT:    %[[C2:.*]] = graph.constant dense<2> : tensor<i32>
# CHECK-NEXT:    %[[B2:.*]] = graph.broadcast %[[C2]] : tensor<i32> -> tensor<3xi32>
# CHECK-NEXT:    %[[R2:.*]] = graph.mul %1, %[[B2]] : tensor<3xi32>
# CHECK-NEXT:    %[[F:.*]] = graph.cast %1 : tensor<3xi32> -> tensor<3xf64>
# CHECK-NEXT:    %[[C3:.*]] = graph.constant dense<2.500000e+00> : tensor<f64>
# CHECK-NEXT:    %[[B3:.*]] = graph.broadcast %[[C3]] : tensor<f64> -> tensor<3xf64>
# CHECK-NEXT:    %[[R3:.*]] = graph.mul %[[F]], %[[B3]] : tensor<3xf64>
# CHECK-NEXT:    func.return %[[R1]], %[[R2]], %[[R3]]
show(weak_scalars, TensorType(f32, [3]), TensorType(i32, [3]))


def bool_plus_one(m):
    return m + 1


# CHECK-LABEL: func.func public @bool_plus_one(%0: tensor<2xi1>) -> tensor<2xi64>
# CHECK-NEXT:    %[[M:.*]] = graph.cast %0 : tensor<2xi1> -> tensor<2xi64>
# CHECK:         graph.add %[[M]], %{{.*}} : tensor<2xi64>
show(bool_plus_one, TensorType(i1, [2]))


def ufuncs(x, n):
    return np.exp(x), np.sqrt(n), np.maximum(x, 0.0), -x, abs(x)


# np.exp on a tensor records graph.exp; np.sqrt of int64 computes in float64.
# CHECK-LABEL: func.func public @ufuncs
# CHECK-NEXT:    %[[E:.*]] = graph.exp %0 : tensor<4xf32>
# CHECK-NEXT:    %[[N:.*]] = graph.cast %1 : tensor<4xi64> -> tensor<4xf64>
# CHECK-NEXT:    %[[Q:.*]] = graph.sqrt %[[N]] : tensor<4xf64>
# CHECK:         %[[M:.*]] = graph.maximum %0, %{{.*}} : tensor<4xf32>
# CHECK-NEXT:    %[[G:.*]] = graph.neg %0 : tensor<4xf32>
# CHECK-NEXT:    %[[A:.*]] = graph.abs %0 : tensor<4xf32>
# CHECK-NEXT:    func.return %[[E]], %[[Q]], %[[M]], %[[G]], %[[A]]
show(ufuncs, TensorType(f32, [4]), TensorType(i64, [4]))


def division(n, m):
    return n / m, n // m, n % m


# True division of integers casts to float64 first; // and % stay integral.
# CHECK-LABEL: func.func public @division(%0: tensor<3xi64>, %1: tensor<3xi64>) -> (tensor<3xf64>, tensor<3xi64>, tensor<3xi64>)
# CHECK-NEXT:    %[[A:.*]] = graph.cast %0 : tensor<3xi64> -> tensor<3xf64>
# CHECK-NEXT:    %[[B:.*]] = graph.cast %1 : tensor<3xi64> -> tensor<3xf64>
# CHECK-NEXT:    graph.div %[[A]], %[[B]] : tensor<3xf64>
# CHECK-NEXT:    graph.floordiv %0, %1 : tensor<3xi64>
# CHECK-NEXT:    graph.mod %0, %1 : tensor<3xi64>
show(division, TensorType(i64, [3]), TensorType(i64, [3]))


def compare(x, y):
    return (x < y) & (x != 0.5), np.logical_not(x > y)


# CHECK-LABEL: func.func public @compare
# CHECK-NEXT:    %[[LT:.*]] = graph.cmp "lt", %0, %1 : tensor<2xf32> -> tensor<2xi1>
# CHECK:         %[[NE:.*]] = graph.cmp "ne", %0, %{{.*}} : tensor<2xf32> -> tensor<2xi1>
# CHECK-NEXT:    %[[AND:.*]] = graph.and %[[LT]], %[[NE]] : tensor<2xi1>
# CHECK-NEXT:    %[[GT:.*]] = graph.cmp "gt", %0, %1 : tensor<2xf32> -> tensor<2xi1>
# CHECK-NEXT:    %[[NOT:.*]] = graph.not %[[GT]] : tensor<2xi1>
# CHECK-NEXT:    func.return %[[AND]], %[[NOT]]
show(compare, TensorType(f32, [2]), TensorType(f32, [2]))
