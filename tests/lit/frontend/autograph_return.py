# RUN: %python %s | filecheck %s
# `return` inside loops becomes a flag that stops the loops and one value returned at the end.
from kiln.frontend.autograph import to_code


def _helper(v):
    return v * 2


def find(m, t):
    for i in range(len(m)):
        for j in range(len(m[i])):
            if m[i][j] == t:
                return i, j
    return _helper(t)


print(to_code(find))
# CHECK-LABEL: def find(m, t):
# CHECK-NEXT:      do_return = False
# CHECK-NEXT:      retval_ = ag__.NOT_RETURNED
# CHECK:           def loop_test():
# CHECK-NEXT:          """the for at line 11"""
# CHECK-NEXT:          return ag__.not_(do_return)
# CHECK:               def loop_test():
# CHECK-NEXT:              """the for at line 12"""
# CHECK-NEXT:              return ag__.not_(do_return)
# CHECK:                   def if_body():
# CHECK-NEXT:                  """the if at line 13"""
# CHECK-NEXT:                  nonlocal do_return, retval_
# CHECK-NEXT:                  do_return = True
# CHECK-NEXT:                  retval_ = ag__.returning((i, j))
# CHECK:               ag__.for_stmt(ag__.range_(ag__.len_(ag__.getitem(m, i))), loop_test, loop_body, get_state, set_state, ('do_return', 'retval_'))
# CHECK:           ag__.for_stmt(ag__.range_(ag__.len_(m)), loop_test, loop_body, get_state, set_state, ('do_return', 'retval_'))
# CHECK:               retval_ = ag__.returning(ag__.call(_helper)(t))
# CHECK:           return ag__.returned(retval_, 'retval_')
