# RUN: %python %s | filecheck %s
"""The positions of nonzero elements: np.nonzero and x[mask] formed as an array trace to one
graph.nonzero of the flattened operand (no sort); np.nonzero divides by the static strides."""

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
# CHECK-NEXT:    %[[P:.*]] = graph.nonzero %[[M]] : tensor<5xi1> -> tensor<?xi64>
# CHECK-NEXT:    %[[V:.*]] = graph.gather %0[%[[P]]] : (tensor<5xf64>, tensor<?xi64>) -> tensor<?xf64>
# CHECK-NEXT:    %{{.*}} = graph.sort %[[V]] axis 0 : tensor<?xf64> -> tensor<?xf64>
# CHECK-NOT:     graph.argsort
show(sorted_selection, TensorType(f64, [5]))
