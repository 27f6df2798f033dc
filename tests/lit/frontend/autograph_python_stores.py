# RUN: %python %s | filecheck %s
# Stores into Python state become ag__ calls that refuse a traced value escaping the trace
# (kiln.frontend.autograph.escapes): attributes, `global` and `nonlocal` names; local names stay.
from kiln.frontend.autograph import to_code

TOTAL = 0.0


def stores(m, x):
    global TOTAL
    m.last = x
    m.total += x
    TOTAL = x
    TOTAL *= 2
    y = x
    return y


def outer():
    n = 0.0

    def assigns_a_nonlocal(x):
        nonlocal n
        n = x
        return n

    return assigns_a_nonlocal


print(to_code(stores))
# CHECK-LABEL: def stores(m, x):
# CHECK:           ag__.store_attribute(x)(m, 'last')
# CHECK-NEXT:      ag__.store_attribute_augmented(m, 'total', 'Add', lambda: x)
# CHECK-NEXT:      TOTAL = ag__.store_global(x, 'TOTAL')
# CHECK-NEXT:      TOTAL = ag__.store_global(ag__.in_place('Mult', TOTAL, 2), 'TOTAL')
# CHECK-NEXT:      y = x
print(to_code(outer()))
# CHECK-LABEL: def assigns_a_nonlocal(x):
# CHECK:           n = ag__.store_nonlocal(x, 'n', lambda: n)
