# RUN: %python %s | filecheck %s
# `for` over a tensor: graph.while with an index and graph.gather_row; over kiln.range: a counter loop.
import numpy as np

import kiln


@kiln.function
def total(v):
    s = 0.0
    for x in v:
        s += x
    return s


print(total.get_concrete_function(np.ones(4, np.float32)).ir)
# s = 0.0 takes the rows' float32, as `0.0 + np.float32(x)` does in the eager loop.
# CHECK-LABEL: func.func public @total(%v: tensor<4xf32>) -> tensor<f32>
# CHECK:         %[[I0:.*]] = graph.constant dense<0> : tensor<i64>
# CHECK:         graph.while(%{{.*}}, %[[I0]]) : (tensor<f32>, tensor<i64>) -> (tensor<f32>, tensor<i64>) cond {
# CHECK:           %[[N:.*]] = graph.constant dense<4> : tensor<i64>
# CHECK-NEXT:      %[[P:.*]] = graph.cmp "lt", %{{.*}}, %[[N]]
# CHECK:         } do {
# CHECK-NEXT:    ^{{.*}}(%[[S:.*]]: tensor<f32>, %[[I:.*]]: tensor<i64>):
# CHECK-NEXT:      %[[X:.*]] = graph.gather_row %v[%[[I]]] : tensor<4xf32>, tensor<i64> -> tensor<f32>
# CHECK:           graph.add %[[S]], %[[X]] : tensor<f32>
# CHECK:           %[[NEXT:.*]] = graph.add %[[I]], %{{.*}} : tensor<i64>


@kiln.function
def squares(n):
    s = 0
    for i in kiln.range(1, n, 2):
        s += i * i
    return s


print(squares.get_concrete_function(np.int64(9)).ir)
# CHECK-LABEL: func.func public @squares(%n: tensor<i64>) -> tensor<i64>
# CHECK:         %[[START:.*]] = graph.constant dense<1> : tensor<i64>
# CHECK:         graph.while(%{{.*}}, %[[START]])
# CHECK:           graph.cmp "lt", %{{.*}}, %n
# CHECK:         } do {
# CHECK-NEXT:    ^{{.*}}(%[[S:.*]]: tensor<i64>, %[[I:.*]]: tensor<i64>):
# CHECK-NEXT:      %[[SQ:.*]] = graph.mul %[[I]], %[[I]]
# CHECK:           %[[TWO:.*]] = graph.constant dense<2> : tensor<i64>
# CHECK-NEXT:      graph.add %[[I]], %[[TWO]]


@kiln.function
def unrolled(v):
    s = 0.0
    for i in range(3):
        s = s + v[i]
    return s


# `range` over Python ints runs as Python: three slices, no loop.
print(unrolled.get_concrete_function(np.ones(4)).ir)
# CHECK-LABEL: func.func public @unrolled
# CHECK-NOT:     graph.while
# CHECK-COUNT-3: graph.slice
