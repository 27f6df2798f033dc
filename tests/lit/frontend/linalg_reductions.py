# RUN: %python %s | filecheck %s
"""Matmul, transposes and reductions, from operators, methods and NumPy's functions."""

import numpy as np
from xdsl.dialects.builtin import TensorType, f32, i1, i32

from kiln.frontend.pytree import TENSOR_SLOT
from kiln.frontend.tracer import trace_graph


def show(fn, *types):
    print(trace_graph(fn, [TENSOR_SLOT] * len(types), {}, list(types), fn.__name__).module)


def dense(x, w):
    return x @ w, np.matmul(x, w), np.dot(x, w)


# CHECK-LABEL: func.func public @dense(%0: tensor<8x4xf32>, %1: tensor<4x2xf32>)
# CHECK-NEXT:    %[[A:.*]] = graph.matmul %0, %1 : (tensor<8x4xf32>, tensor<4x2xf32>) -> tensor<8x2xf32>
# CHECK-NEXT:    %[[B:.*]] = graph.matmul %0, %1 : (tensor<8x4xf32>, tensor<4x2xf32>) -> tensor<8x2xf32>
# CHECK-NEXT:    %[[C:.*]] = graph.matmul %0, %1 : (tensor<8x4xf32>, tensor<4x2xf32>) -> tensor<8x2xf32>
# CHECK-NEXT:    func.return %[[A]], %[[B]], %[[C]]
show(dense, TensorType(f32, [8, 4]), TensorType(f32, [4, 2]))


def constant_weights(x):
    return np.ones((3, 2), np.float32) @ x


# A NumPy array on the left of @ is a constant; NumPy hands the product to the tensor (__rmatmul__).
# CHECK-LABEL: func.func public @constant_weights
# CHECK-NEXT:    %[[W:.*]] = graph.constant dense<1.000000e+00> : tensor<3x2xf32>
# CHECK-NEXT:    graph.matmul %[[W]], %0 : (tensor<3x2xf32>, tensor<2x5xf32>) -> tensor<3x5xf32>
show(constant_weights, TensorType(f32, [2, 5]))


def batched(a, b):
    return a @ b


# Batch dimensions are broadcast before graph.matmul.
# CHECK-LABEL: func.func public @batched(%0: tensor<1x2x3xf32>, %1: tensor<5x3x4xf32>)
# CHECK-NEXT:    %[[A:.*]] = graph.broadcast %0 : tensor<1x2x3xf32> -> tensor<5x2x3xf32>
# CHECK-NEXT:    graph.matmul %[[A]], %1 : (tensor<5x2x3xf32>, tensor<5x3x4xf32>) -> tensor<5x2x4xf32>
show(batched, TensorType(f32, [1, 2, 3]), TensorType(f32, [5, 3, 4]))


def transposes(x):
    return x.T, np.transpose(x, (1, 0)), x.transpose()


# CHECK-LABEL: func.func public @transposes
# CHECK-COUNT-3: graph.transpose %0 perm array<i64: 1, 0> : tensor<2x3xf32> -> tensor<3x2xf32>
show(transposes, TensorType(f32, [2, 3]))


def reductions(x):
    return x.sum(axis=0), np.mean(x, axis=-1, keepdims=True), x.max(), np.min(x, axis=(0, 1))


# CHECK-LABEL: func.func public @reductions
# CHECK-NEXT:    graph.reduce "sum", %0 axes array<i64: 0> : tensor<2x3xf32> -> tensor<3xf32>
# CHECK-NEXT:    graph.reduce "mean", %0 axes array<i64: 1> keepdims : tensor<2x3xf32> -> tensor<2x1xf32>
# CHECK-NEXT:    graph.reduce "max", %0 axes array<i64: 0, 1> : tensor<2x3xf32> -> tensor<f32>
# CHECK-NEXT:    graph.reduce "min", %0 axes array<i64: 0, 1> : tensor<2x3xf32> -> tensor<f32>
show(reductions, TensorType(f32, [2, 3]))


def integer_reductions(n, m):
    return n.sum(), n.mean(axis=0), m.sum(axis=1), n.max(axis=1)


# NumPy sums int32 and bool in int64 and averages integers in float64; max keeps the dtype.
# CHECK-LABEL: func.func public @integer_reductions(%0: tensor<2x3xi32>, %1: tensor<2x3xi1>) -> (tensor<i64>, tensor<3xf64>, tensor<2xi64>, tensor<2xi32>)
# CHECK-NEXT:    %[[W:.*]] = graph.cast %0 : tensor<2x3xi32> -> tensor<2x3xi64>
# CHECK-NEXT:    graph.reduce "sum", %[[W]] axes array<i64: 0, 1> : tensor<2x3xi64> -> tensor<i64>
# CHECK-NEXT:    %[[F:.*]] = graph.cast %0 : tensor<2x3xi32> -> tensor<2x3xf64>
# CHECK-NEXT:    graph.reduce "mean", %[[F]] axes array<i64: 0> : tensor<2x3xf64> -> tensor<3xf64>
# CHECK-NEXT:    %[[B:.*]] = graph.cast %1 : tensor<2x3xi1> -> tensor<2x3xi64>
# CHECK-NEXT:    graph.reduce "sum", %[[B]] axes array<i64: 1> : tensor<2x3xi64> -> tensor<2xi64>
# CHECK-NEXT:    graph.reduce "max", %0 axes array<i64: 1> : tensor<2x3xi32> -> tensor<2xi32>
show(integer_reductions, TensorType(i32, [2, 3]), TensorType(i1, [2, 3]))


def shapes(x):
    return x.reshape(3, -1), x.flatten(), np.concatenate([x, x], axis=1), np.expand_dims(x, 0)


# CHECK-LABEL: func.func public @shapes
# CHECK-NEXT:    graph.reshape %0 : tensor<2x6xf32> -> tensor<3x4xf32>
# CHECK-NEXT:    graph.reshape %0 : tensor<2x6xf32> -> tensor<12xf32>
# CHECK-NEXT:    graph.concat %0, %0 axis 1 : (tensor<2x6xf32>, tensor<2x6xf32>) -> tensor<2x12xf32>
# CHECK-NEXT:    graph.reshape %0 : tensor<2x6xf32> -> tensor<1x2x6xf32>
show(shapes, TensorType(f32, [2, 6]))
