# RUN: %python %s | filecheck %s
# `while` on a tensor: graph.while carrying the variables the loop changes; Python numbers become tensors.
import numpy as np

import kiln


@kiln.function
def collatz(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


print(collatz.get_concrete_function(np.int64(7)).ir)
# CHECK-LABEL: func.func public @collatz(%n: tensor<i64>) -> tensor<i64>
# CHECK:         %[[S0:.*]] = graph.constant dense<0> : tensor<i64>
# CHECK-NEXT:    %[[N:.*]], %[[S:.*]] = graph.while(%n, %[[S0]]) : (tensor<i64>, tensor<i64>) -> (tensor<i64>, tensor<i64>) cond {
# CHECK-NEXT:    ^{{.*}}(%[[CN:.*]]: tensor<i64>, %[[CS:.*]]: tensor<i64>):
# CHECK:           %[[P:.*]] = graph.cmp "ne", %[[CN]]
# CHECK-NEXT:      graph.condition %[[P]], %[[CN]], %[[CS]] : tensor<i64>, tensor<i64>
# CHECK-NEXT:    } do {
# CHECK-NEXT:    ^{{.*}}(%[[BN:.*]]: tensor<i64>, %[[BS:.*]]: tensor<i64>):
# CHECK:           %[[NEXT:.*]] = graph.cond
# CHECK:           %[[INC:.*]] = graph.add %[[BS]]
# `steps` is a Python int, which a `while` may carry past int64: checked (n, a NumPy int64, wraps)
# CHECK:           graph.check %{{.*}}, "OverflowError: {{.*}}staged_while.py:16:9: + of Python ints: this Python int does not fit in 64 bits
# CHECK-NEXT:      graph.yield %[[NEXT]], %[[INC]] : tensor<i64>, tensor<i64>
# CHECK-NEXT:    }
# CHECK-NEXT:    func.return %[[S]] : tensor<i64>


@kiln.function
def halve_until_small(x):
    while x > 1.0:
        x = x / 2.0
    return x


print(halve_until_small.get_concrete_function(np.float32(7)).ir)
# CHECK-LABEL: func.func public @halve_until_small(%x: tensor<f32>) -> tensor<f32>
# CHECK:         graph.while(%x) : (tensor<f32>) -> tensor<f32> cond {
