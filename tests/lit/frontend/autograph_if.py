# RUN: %python %s | filecheck %s
# `if`/`elif`/`else`, conditional expressions and logical operators become operator calls.
from kiln.frontend.autograph import to_code


def sign(x):
    if x > 0:
        s = 1
    elif x < 0:
        s = -1
    else:
        s = 0
    return s


print(to_code(sign))
# CHECK-LABEL: def sign(x):
# CHECK-NEXT:      s = ag__.Undefined('s')
# CHECK:           def if_body():
# CHECK-NEXT:          """the if at line 7"""
# CHECK-NEXT:          nonlocal s
# CHECK-NEXT:          s = 1
# CHECK:           def else_body():
# CHECK:               def if_body():
# CHECK:               ag__.if_stmt(x < 0, if_body, else_body, get_state, set_state, ('s',))
# CHECK:           def get_state():
# CHECK-NEXT:          """the if at line 7"""
# CHECK-NEXT:          return (s,)
# CHECK:           def set_state(vars_):
# CHECK-NEXT:          """the if at line 7"""
# CHECK-NEXT:          nonlocal s
# CHECK-NEXT:          s, = vars_
# CHECK-NEXT:      ag__.if_stmt(x > 0, if_body, else_body, get_state, set_state, ('s',))
# CHECK-NEXT:      return s


def pick(a, b, c):
    return a and not b or (c if a else b)


print(to_code(pick))
# CHECK-LABEL: def pick(a, b, c):
# CHECK-NEXT:      return ag__.or_(lambda: ag__.and_(lambda: a, lambda: ag__.not_(b)), lambda: ag__.if_exp(a, lambda: c, lambda: b))
