# RUN: %python %s | filecheck %s
# `assert` on a tensor is a graph.check whose message names AssertionError, then the user's text, then
# byte 0x1e and the line (a note on the exception: graph.WHERE_SEPARATOR); `raise` under a staged
# `if` is a graph.check of false in that branch, which yields nothing; a chained comparison is the
# `and` of its comparisons, its middle operand compared once on each side.
import numpy as np

import kiln


@kiln.function
def checked(x):
    assert x > 0, "not positive"
    return x * 2.0


print(checked.get_concrete_function(np.float64(1)).ir)
# CHECK-LABEL: func.func public @checked
# CHECK:         %[[C:.*]] = graph.cmp "gt", %x
# CHECK-NEXT:    graph.check %[[C]], "AssertionError: not positive\1E{{.*}}staged_checks.py:13:5: `assert x > 0` failed" : tensor<i1>
# CHECK:         graph.mul


@kiln.function
def guarded(x):
    if x > 10:
        raise OverflowError(f"over {10}")
    return x * 2.0


print(guarded.get_concrete_function(np.float64(1)).ir)
# CHECK-LABEL: func.func public @guarded
# CHECK:         %[[P:.*]] = graph.cmp "gt", %x
# CHECK-NEXT:    graph.cond %[[P]] {
# CHECK-NEXT:      %[[F:.*]] = graph.constant dense<false> : tensor<i1>
# CHECK-NEXT:      graph.check %[[F]], "OverflowError: over 10\1E{{.*}}staged_checks.py:27:9" : tensor<i1>
# CHECK-NEXT:      graph.yield
# CHECK-NEXT:    } else {
# CHECK-NEXT:      graph.yield
# CHECK-NEXT:    }
# CHECK-NEXT:    graph.constant
# CHECK-NEXT:    graph.mul


@kiln.function
def band(x):
    return 0.2 <= x <= 0.8


print(band.get_concrete_function(np.float64(1)).ir)
# CHECK-LABEL: func.func public @band
# CHECK:         %[[LO:.*]] = graph.cmp "ge", %x
# CHECK-NEXT:    graph.cond %[[LO]] -> (tensor<i1>) {
# CHECK:           %[[HI:.*]] = graph.cmp "le", %x
# CHECK-NEXT:      graph.yield %[[HI]] : tensor<i1>
# CHECK-NEXT:    } else {
# CHECK-NEXT:      graph.yield %[[LO]] : tensor<i1>
# CHECK-NEXT:    }
