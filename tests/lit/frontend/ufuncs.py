# RUN: %python %s | filecheck %s
"""NumPy's elementwise math as traced: one graph op per ufunc in NumPy's loop dtype; the
NumPy functions built from ufuncs (np.round, np.nan_to_num) as the ufuncs NumPy calls."""

import numpy as np
from xdsl.dialects.builtin import TensorType, f32, i32

from kiln.frontend.pytree import TENSOR_SLOT
from kiln.frontend.tracer import trace_graph


def show(fn, *types):
    print(trace_graph(fn, [TENSOR_SLOT] * len(types), {}, list(types), fn.__name__).module)


def trig(x, n):
    return np.arctan2(x, 2.0), np.hypot(n, n), np.deg2rad(x), np.isfinite(n), n >> 3


# float32 stays float32 beside a weak Python float; int32 computes hypot in float64; deg2rad is
# x * (pi/180) with the quotient rounded in float32, as NumPy's float32 loop has it; isfinite of
# integers is a graph op (all true); shifts stay in int32.
# CHECK-LABEL: func.func public @trig(%0: tensor<4xf32>, %1: tensor<4xi32>)
# CHECK-NEXT:    %[[TWO:.*]] = graph.constant dense<2.000000e+00> : tensor<f32>
# CHECK-NEXT:    %[[B:.*]] = graph.broadcast %[[TWO]] : tensor<f32> -> tensor<4xf32>
# CHECK-NEXT:    %{{.*}} = graph.arctan2 %0, %[[B]] : tensor<4xf32>
# CHECK-NEXT:    %[[N:.*]] = graph.cast %1 : tensor<4xi32> -> tensor<4xf64>
# CHECK-NEXT:    %[[M:.*]] = graph.cast %1 : tensor<4xi32> -> tensor<4xf64>
# CHECK-NEXT:    %{{.*}} = graph.hypot %[[N]], %[[M]] : tensor<4xf64>
# CHECK-NEXT:    %[[K:.*]] = graph.constant dense<0.0174532924> : tensor<f32>
# CHECK-NEXT:    %[[KB:.*]] = graph.broadcast %[[K]] : tensor<f32> -> tensor<4xf32>
# CHECK-NEXT:    %{{.*}} = graph.mul %0, %[[KB]] : tensor<4xf32>
# CHECK-NEXT:    %{{.*}} = graph.isfinite %1 : tensor<4xi32> -> tensor<4xi1>
# CHECK:         %{{.*}} = graph.right_shift %1, %{{.*}} : tensor<4xi32>
show(trig, TensorType(f32, [4]), TensorType(i32, [4]))


def rounding(x, n):
    return np.round(x, 2), np.round(n, -1), np.round(n, 1), np.trunc(n)


# decimals > 0 on floats: scale, rint, unscale in float32; integers with decimals < 0 go through
# float64 and back; with decimals >= 0, and trunc, integers are returned as they are.
# CHECK-LABEL: func.func public @rounding(%0: tensor<4xf32>, %1: tensor<4xi32>)
# CHECK:         %[[S:.*]] = graph.mul %0, %{{.*}} : tensor<4xf32>
# CHECK-NEXT:    %[[R:.*]] = graph.rint %[[S]] : tensor<4xf32>
# CHECK:         %{{.*}} = graph.div %[[R]], %{{.*}} : tensor<4xf32>
# CHECK:         %[[F:.*]] = graph.cast %1 : tensor<4xi32> -> tensor<4xf64>
# CHECK:         %[[D:.*]] = graph.div %[[F]], %{{.*}} : tensor<4xf64>
# CHECK-NEXT:    %[[R2:.*]] = graph.rint %[[D]] : tensor<4xf64>
# CHECK:         %[[M:.*]] = graph.mul %[[R2]], %{{.*}} : tensor<4xf64>
# CHECK-NEXT:    %[[C:.*]] = graph.cast %[[M]] : tensor<4xf64> -> tensor<4xi32>
# CHECK-NEXT:    func.return %{{.*}}, %[[C]], %1, %1 : tensor<4xf32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>
show(rounding, TensorType(f32, [4]), TensorType(i32, [4]))


def cleanup(x):
    return np.nan_to_num(x, posinf=1.0)


# CHECK-LABEL: func.func public @cleanup(%0: tensor<4xf32>)
# CHECK-NEXT:    %[[NAN:.*]] = graph.isnan %0 : tensor<4xf32> -> tensor<4xi1>
# CHECK:         %[[A:.*]] = graph.select %[[NAN]], %{{.*}}, %0 : tensor<4xi1>, tensor<4xf32>
# CHECK:         %[[P:.*]] = graph.cmp "eq", %0, %{{.*}} : tensor<4xf32> -> tensor<4xi1>
# CHECK:         %[[B:.*]] = graph.select %[[P]], %{{.*}}, %[[A]] : tensor<4xi1>, tensor<4xf32>
# CHECK:         %[[M:.*]] = graph.cmp "eq", %0, %{{.*}} : tensor<4xf32> -> tensor<4xi1>
# CHECK:         %{{.*}} = graph.select %[[M]], %{{.*}}, %[[B]] : tensor<4xi1>, tensor<4xf32>
show(cleanup, TensorType(f32, [4]))
