# RUN: %python %s | filecheck %s
# `and`/`or` on tensors short-circuit through graph.cond; `not` is graph.not; `a if c else b` is graph.cond.
import numpy as np

import kiln


@kiln.function
def both(x, y):
    return x > 0 and y > 0


print(both.get_concrete_function(np.float64(1), np.float64(1)).ir)
# CHECK-LABEL: func.func public @both
# CHECK:         %[[A:.*]] = graph.cmp "gt", %x
# CHECK-NEXT:    %[[R:.*]] = graph.cond %[[A]] -> (tensor<i1>) {
# CHECK:           %[[B:.*]] = graph.cmp "gt", %y
# CHECK-NEXT:      graph.yield %[[B]] : tensor<i1>
# CHECK-NEXT:    } else {
# CHECK-NEXT:      graph.yield %[[A]] : tensor<i1>
# CHECK-NEXT:    }


@kiln.function
def either_not(x, y):
    return not x > 0 or y > 0


print(either_not.get_concrete_function(np.float64(1), np.float64(1)).ir)
# CHECK-LABEL: func.func public @either_not
# CHECK:         %[[N:.*]] = graph.not %{{.*}} : tensor<i1>
# `not` gives a Python bool, `y > 0` a NumPy bool: the cond also yields which kind the result is.
# CHECK-NEXT:    %{{.*}}, %{{.*}} = graph.cond %[[N]] -> (tensor<i1>, tensor<i8>) {
# CHECK:           graph.yield %[[N]], %{{.*}} : tensor<i1>, tensor<i8>
# CHECK-NEXT:    } else {
# CHECK:           graph.cmp "gt", %y


@kiln.function
def pick(x):
    return x * 2.0 if x > 1 else x - 3.0


print(pick.get_concrete_function(np.float32(1)).ir)
# CHECK-LABEL: func.func public @pick
# CHECK:         graph.cond %{{.*}} -> (tensor<f32>) {
# CHECK:           graph.mul
# CHECK:         } else {
# CHECK:           graph.sub
