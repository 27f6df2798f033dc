# RUN: %python %s | filecheck %s
# `if`/`elif`/`else` on a tensor: graph.cond; Python numbers in a branch take the other branch's dtype.
import numpy as np

import kiln


@kiln.function
def square_if_positive(x):
    if x > 0:
        x = x * x
    else:
        x = 0.0
    return x


print(square_if_positive.get_concrete_function(np.float32(1)).ir)
# The result is a float32 scalar on one path and the Python float 0.0 on the other (as in NumPy):
# the `if` also yields which (1: a NumPy scalar, 5: a Python float; kiln.frontend.result_kinds), an
# extra result of the function.
# CHECK-LABEL: func.func public @square_if_positive(%x: tensor<f32>) -> (tensor<f32>, tensor<i8>)
# CHECK:         %[[P:.*]] = graph.cmp "gt", %x, %{{.*}} : tensor<f32> -> tensor<i1>
# CHECK-NEXT:    %[[R:.*]], %[[K:.*]] = graph.cond %[[P]] -> (tensor<f32>, tensor<i8>) {
# CHECK-NEXT:      %[[SQ:.*]] = graph.mul %x, %x : tensor<f32>
# CHECK-NEXT:      %[[NP:.*]] = graph.constant dense<1> : tensor<i8>
# CHECK-NEXT:      graph.yield %[[SQ]], %[[NP]] : tensor<f32>, tensor<i8>
# CHECK-NEXT:    } else {
# CHECK-NEXT:      %[[Z:.*]] = graph.constant dense<0.000000e+00> : tensor<f32>
# CHECK-NEXT:      %[[PY:.*]] = graph.constant dense<5> : tensor<i8>
# CHECK-NEXT:      graph.yield %[[Z]], %[[PY]] : tensor<f32>, tensor<i8>
# CHECK-NEXT:    }
# CHECK-NEXT:    func.return %[[R]], %[[K]] : tensor<f32>, tensor<i8>


@kiln.function
def sign(x):
    if x > 0:
        s = 1
    elif x < 0:
        s = -1
    else:
        s = 0
    return s


print(sign.get_concrete_function(np.float64(1)).ir)
# CHECK-LABEL: func.func public @sign(%x: tensor<f64>) -> tensor<i64>
# CHECK:         graph.cond %{{.*}} -> (tensor<i64>) {
# CHECK:           graph.yield %{{.*}} : tensor<i64>
# CHECK-NEXT:    } else {
# CHECK:           %[[INNER:.*]] = graph.cond %{{.*}} -> (tensor<i64>) {
# CHECK:           graph.yield %[[INNER]] : tensor<i64>


@kiln.function
def python_condition(x, flag):
    if flag:
        x = x + 1.0
    return x


# A Python condition runs as Python: no graph.cond.
print(python_condition.get_concrete_function(np.float64(1), True).ir)
# CHECK-LABEL: func.func public @python_condition
# CHECK-NOT:     graph.cond
# CHECK:         graph.add
# CHECK-NEXT:    func.return
