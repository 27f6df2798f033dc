# RUN: %python %s | filecheck %s
# kiln.TensorArray: storage created at the first write, carried by the loop, written with graph.scatter_row;
# x[i] with a tensor index is graph.gather_row.
import numpy as np

import kiln


@kiln.function
def square_if_positive_naive(x):
    result = kiln.TensorArray(x.dtype, size=len(x))
    for i in kiln.range(len(x)):
        if x[i] > 0:
            result = result.write(i, x[i] ** 2)
        else:
            result = result.write(i, x[i])
    return result.stack()


print(square_if_positive_naive.get_concrete_function(np.ones(4, np.float32)).ir)
# CHECK-LABEL: func.func public @square_if_positive_naive(%x: tensor<4xf32>) -> tensor<4xf32>
# CHECK:         %[[ZERO:.*]] = graph.broadcast %{{.*}} : tensor<f32> -> tensor<4xf32>
# CHECK-NEXT:    %[[OUT:.*]], %{{.*}} = graph.while(%[[ZERO]], %{{.*}}) : (tensor<4xf32>, tensor<i64>)
# CHECK:         } do {
# CHECK-NEXT:    ^{{.*}}(%[[BUF:.*]]: tensor<4xf32>, %[[I:.*]]: tensor<i64>):
# CHECK-NEXT:      %[[XI:.*]] = graph.gather_row %x[%[[I]]] : tensor<4xf32>, tensor<i64> -> tensor<f32>
# CHECK:           graph.cond %{{.*}} -> (tensor<4xf32>) {
# CHECK:             %[[W:.*]] = graph.scatter_row %{{.*}} into %[[BUF]][%[[I]]] : tensor<f32>, tensor<4xf32>, tensor<i64>
# CHECK-NEXT:        graph.yield %[[W]] : tensor<4xf32>
# CHECK:         func.return %[[OUT]] : tensor<4xf32>
