# RUN: %python %s | filecheck %s
"""The positions of nonzero elements: np.nonzero traces to one graph.nonzero of the flattened
operand (no sort) and divides by the static strides; x[mask] formed as an array is one
graph.compress of the flattened values by the flattened mask."""

import numpy as np
from xdsl.dialects.builtin import TensorType, f64, i1

from kiln.frontend.pytree import TENSOR_SLOT
from kiln.frontend.tracer import trace_graph


def show(fn, *types):
    print(trace_graph(fn, [TENSOR_SLOT] * len(types), {}, list(types), fn.__name__).module)


def indices(m):
    i, j = np.nonzero(m)
    return (i * 10 + j).sum()


# CHECK-LABEL: func.func public @indices(%0: tensor<3x4xi1>) -> tensor<i64>
# CHECK:         %[[F:.*]] = graph.reshape %0 : tensor<3x4xi1> -> tensor<12xi1>
# CHECK-NEXT:    %[[P:.*]] = graph.nonzero %[[F]] : tensor<12xi1> -> tensor<?xi64>
# CHECK:         %{{.*}} = graph.mod %[[P]], %{{.*}} : tensor<?xi64>
# CHECK:         %{{.*}} = graph.floordiv %[[P]], %{{.*}} : tensor<?xi64>
# CHECK-NOT:     graph.argsort
show(indices, TensorType(i1, [3, 4]))


def sorted_selection(x):
    return np.sort(x[x > 0])


# CHECK-LABEL: func.func public @sorted_selection
# CHECK:         %[[M:.*]] = graph.cmp "gt", %0, %{{.*}} : tensor<5xf64> -> tensor<5xi1>
# CHECK-NEXT:    %[[V:.*]] = graph.compress %0, %[[M]] : (tensor<5xf64>, tensor<5xi1>) -> tensor<?xf64>
# CHECK-NEXT:    %{{.*}} = graph.sort %[[V]] axis 0 : tensor<?xf64> -> tensor<?xf64>
# CHECK-NOT:     graph.argsort
show(sorted_selection, TensorType(f64, [5]))


def selection_2d(x):
    return np.sort(x[x > 0])


# x[mask] of a 2-D array: one graph.compress of both flattened (no positions, no gather).
# CHECK-LABEL: func.func public @selection_2d
# CHECK:         %[[M:.*]] = graph.cmp "gt", %0, %{{.*}} : tensor<3x4xf64> -> tensor<3x4xi1>
# CHECK-NEXT:    %[[V:.*]] = graph.reshape %0 : tensor<3x4xf64> -> tensor<12xf64>
# CHECK-NEXT:    %[[F:.*]] = graph.reshape %[[M]] : tensor<3x4xi1> -> tensor<12xi1>
# CHECK-NEXT:    %{{.*}} = graph.compress %[[V]], %[[F]] : (tensor<12xf64>, tensor<12xi1>) -> tensor<?xf64>
# CHECK-NOT:     graph.nonzero
# CHECK-NOT:     graph.gather
show(selection_2d, TensorType(f64, [3, 4]))


def extracted(c, x):
    return np.sort(np.extract(c, x))


# np.extract with a condition of the array's static size is one graph.compress too.
# CHECK-LABEL: func.func public @extracted
# CHECK:         %{{.*}} = graph.compress %{{.*}}, %{{.*}} : (tensor<12xf64>, tensor<12xi1>) -> tensor<?xf64>
# CHECK-NOT:     graph.nonzero
show(extracted, TensorType(i1, [3, 4]), TensorType(f64, [3, 4]))
