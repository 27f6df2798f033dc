# RUN: %python %s | filecheck %s
"""np.where, kiln's array ops, and Python helpers traced through (inlined, no call op)."""

import numpy as np
from xdsl.dialects.builtin import TensorType, f32, i32

from kiln.frontend import array_ops
from kiln.frontend.pytree import TENSOR_SLOT
from kiln.frontend.tracer import trace_graph


def show(fn, *types):
    print(trace_graph(fn, [TENSOR_SLOT] * len(types), {}, list(types), fn.__name__).module)


def clamp_negative(x, y):
    return np.where(x > 0, x, y)


# CHECK-LABEL: func.func public @clamp_negative(%0: tensor<2x3xf32>, %1: tensor<3xi32>) -> tensor<2x3xf64>
# CHECK:         %[[C:.*]] = graph.cmp "gt", %0, %{{.*}} : tensor<2x3xf32> -> tensor<2x3xi1>
# CHECK-NEXT:    %[[X:.*]] = graph.cast %0 : tensor<2x3xf32> -> tensor<2x3xf64>
# CHECK-NEXT:    %[[Y:.*]] = graph.cast %1 : tensor<3xi32> -> tensor<3xf64>
# CHECK-NEXT:    %[[YB:.*]] = graph.broadcast %[[Y]] : tensor<3xf64> -> tensor<2x3xf64>
# CHECK-NEXT:    %[[S:.*]] = graph.select %[[C]], %[[X]], %[[YB]] : tensor<2x3xi1>, tensor<2x3xf64>
# CHECK-NEXT:    func.return %[[S]]
show(clamp_negative, TensorType(f32, [2, 3]), TensorType(i32, [3]))


def layer(x, w):
    return array_ops.relu(x @ w)


def softplus_ish(z):
    return np.log(1.0 + np.exp(z))


def model(x, w):
    return softplus_ish(layer(x, w)), array_ops.sigmoid(x)


# CHECK-LABEL: func.func public @model
# CHECK-NOT:     call
# CHECK:         %[[M:.*]] = graph.matmul %0, %1
# CHECK-NEXT:    %[[R:.*]] = graph.relu %[[M]] : tensor<2x5xf32>
# CHECK:         %[[E:.*]] = graph.exp %[[R]] : tensor<2x5xf32>
# CHECK-NEXT:    %[[ONE:.*]] = graph.constant dense<1.000000e+00> : tensor<f32>
# CHECK-NEXT:    %[[ONES:.*]] = graph.broadcast %[[ONE]] : tensor<f32> -> tensor<2x5xf32>
# CHECK-NEXT:    %[[A:.*]] = graph.add %[[ONES]], %[[E]] : tensor<2x5xf32>
# CHECK-NEXT:    %[[L:.*]] = graph.log %[[A]] : tensor<2x5xf32>
# CHECK-NEXT:    %[[S:.*]] = graph.sigmoid %0 : tensor<2x3xf32>
# CHECK-NEXT:    func.return %[[L]], %[[S]]
show(model, TensorType(f32, [2, 3]), TensorType(f32, [3, 5]))


def constants(x):
    return x + array_ops.zeros((2, 3)), array_ops.constant([1, 2, 3], "int32")


# CHECK-LABEL: func.func public @constants
# CHECK-NEXT:    %[[Z:.*]] = graph.constant dense<0.000000e+00> : tensor<f32>
# CHECK-NEXT:    %[[ZB:.*]] = graph.broadcast %[[Z]] : tensor<f32> -> tensor<2x3xf32>
# CHECK-NEXT:    graph.add %0, %[[ZB]] : tensor<2x3xf32>
# CHECK-NEXT:    graph.constant dense<[1, 2, 3]> : tensor<3xi32>
show(constants, TensorType(f32, [2, 3]))
