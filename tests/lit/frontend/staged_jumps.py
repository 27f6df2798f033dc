# RUN: %python %s | filecheck %s
# `break`, `continue` and `return` inside staged loops become flags carried by graph.while.
import numpy as np

import kiln


@kiln.function
def sum_even(items):
    s = 0
    for c in items:
        if c % 2 > 0:
            continue
        s += c
    return s


print(sum_even.get_concrete_function(np.array([10, 12, 15, 20])).ir)
# The `continue` flag is local to one iteration: not carried. `s` is the Python int 0 until an
# even item makes it a NumPy int64: the loop carries its run-time kind flag (tensor<i8>) too.
# CHECK-LABEL: func.func public @sum_even
# CHECK:         graph.while(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<i64>, tensor<i64>, tensor<i8>) -> (tensor<i64>, tensor<i64>, tensor<i8>) cond {
# CHECK:           %[[CONT:.*]] = graph.cond %{{.*}} -> (tensor<i1>) {
# CHECK:           %[[GO:.*]] = graph.not %[[CONT]]
# CHECK-NEXT:      graph.cond %[[GO]] -> (tensor<i64>, tensor<i8>) {


@kiln.function
def until_negative(v):
    s = 0.0
    for x in v:
        if x < 0:
            break
        s += x
    return s


print(until_negative.get_concrete_function(np.ones(3)).ir)
# The `break` flag is carried and stops the loop in its cond region (and `s`'s kind flag: the
# Python float 0.0 where the first item breaks, a NumPy float64 after `s += x`).
# CHECK-LABEL: func.func public @until_negative
# CHECK:         %[[F:.*]] = graph.constant dense<false> : tensor<i1>
# CHECK:         graph.while(%[[F]], %{{.*}}, %{{.*}}, %{{.*}}) : (tensor<i1>, tensor<f64>, tensor<i64>, tensor<i8>)
# CHECK:           %[[MORE:.*]] = graph.cmp "lt"
# CHECK-NEXT:      %[[NB:.*]] = graph.not %{{.*}} : tensor<i1>
# CHECK-NEXT:      %[[GO:.*]] = graph.and %[[MORE]], %[[NB]] : tensor<i1>
# CHECK-NEXT:      graph.condition %[[GO]]


@kiln.function
def first_above(v, t):
    for i in kiln.range(v.shape[0]):
        if v[i] > t:
            return i
    return -1


print(first_above.get_concrete_function(np.ones(3), np.float64(0)).ir)
# `return` sets do_return and retval_ (a placeholder zero before the loop); the rest is guarded.
# CHECK-LABEL: func.func public @first_above
# CHECK:         %[[DONE:.*]], %[[VAL:.*]], %{{.*}} = graph.while(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<i1>, tensor<i64>, tensor<i64>)
# CHECK:         %[[NOT:.*]] = graph.not %[[DONE]]
# CHECK-NEXT:    %[[R:.*]] = graph.cond %[[NOT]] -> (tensor<i64>) {
# CHECK:         } else {
# CHECK-NEXT:      graph.yield %[[VAL]] : tensor<i64>
# CHECK:         func.return %[[R]]
