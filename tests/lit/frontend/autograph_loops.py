# RUN: %python %s | filecheck %s
# Loops become helpers with no `break`/`continue` inside: jumps are lowered to flags first.
import numpy as np

from kiln.frontend.autograph import to_code


def sum_even(xs):
    total = 0
    for x in xs:
        if x % 2:
            continue
        total += x
    return total


print(to_code(sum_even))
# CHECK-LABEL: def sum_even(xs):
# CHECK-NEXT:      total = 0
# CHECK-NEXT:      x = ag__.Undefined('x')
# CHECK:           def loop_body(itr):
# CHECK-NEXT:          """the for at line 10"""
# CHECK-NEXT:          nonlocal total, x
# CHECK-NEXT:          x = itr
# CHECK-NEXT:          continue_1 = False
# CHECK:               ag__.if_stmt(x % 2, if_body, None, get_state, set_state, ('continue_1',))
# CHECK:               def if_body():
# CHECK-NEXT:              """the if at line 11"""
# CHECK-NEXT:              nonlocal total
# CHECK-NEXT:              total += x
# CHECK:               ag__.if_stmt(ag__.not_(continue_1), if_body, None, get_state, set_state, ('total',))
# CHECK:           ag__.for_stmt(xs, None, loop_body, get_state, set_state, ('total',))
# CHECK-NEXT:      return total
# CHECK-NOT:   continue{{$}}


def first_square_above(n, limit):
    i = 0
    while i < n:
        if i * i > limit:
            break
        i += 1
    else:
        i = -1
    return i


print(to_code(first_square_above))
# CHECK-LABEL: def first_square_above(n, limit):
# The `else` clause has a flag of its own, cleared where the loop breaks (not `if not break_1`,
# which staging takes for the guard of code that a jump skips).
# CHECK:           break_1 = False
# CHECK-NEXT:      loop_else_1 = True
# CHECK:           def loop_test():
# CHECK-NEXT:          """the while at line 39"""
# CHECK-NEXT:          return ag__.and_(lambda: ag__.not_(break_1), lambda: i < n)
# CHECK:           def loop_body():
# CHECK-NEXT:          """the while at line 39"""
# CHECK-NEXT:          nonlocal break_1, i, loop_else_1
# CHECK:                   break_1 = True
# CHECK-NEXT:              loop_else_1 = False
# CHECK:           ag__.while_stmt(loop_test, loop_body, get_state, set_state, ('break_1', 'i', 'loop_else_1'))
# CHECK:           ag__.if_stmt(loop_else_1, if_body, None, get_state, set_state, ('i',))


# A test that is not a bool on every path is read for its truth: `while t:` with a `break` stays
# stageable once t is an int tensor (the flag's `and` joins two bools).
def count_down_to_first_positive(x, t):
    while t:
        if x[t % 3] > 0:
            break
        t -= 1
    return t


print(to_code(count_down_to_first_positive))
# CHECK-LABEL: def count_down_to_first_positive(x, t):
# CHECK:           def loop_test():
# CHECK-NEXT:          """the while at line 69"""
# CHECK-NEXT:          return ag__.and_(lambda: ag__.not_(break_1), lambda: ag__.not_(ag__.not_(t)))


def count_up(n):
    total = 0
    for i in range(n):
        total += np.square(i)
    return total


print(to_code(count_up))
# CHECK-LABEL: def count_up(n):
# CHECK:           total += np.square(i)
# CHECK:           ag__.for_stmt(ag__.range_(n), None, loop_body, get_state, set_state, ('total',))
