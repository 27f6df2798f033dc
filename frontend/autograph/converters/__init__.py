"""The converters, one per construct, in the order the transpiler runs them.

Each module exposes ``transform(func, ctx)``, which rewrites one
``FunctionDef`` in place. Jumps are lowered first (``break``, ``continue``,
``return`` become flags), so that ``control_flow`` can turn every body into a
helper function with no jump inside; expression converters run last.
"""

from kiln.frontend.autograph.converters import (
    asserts,
    break_statements,
    call_trees,
    comprehensions,
    conditional_expressions,
    continue_statements,
    control_flow,
    functions,
    logical_expressions,
    python_effects,
    python_stores,
    raises,
    return_statements,
    shapes,
    subscripts,
    unsupported,
    while_tests,
)

PIPELINE = (
    functions,
    unsupported,
    comprehensions,
    asserts,
    raises,
    python_effects,
    python_stores,
    while_tests,
    break_statements,
    continue_statements,
    return_statements,
    call_trees,
    control_flow,
    conditional_expressions,
    logical_expressions,
    subscripts,
    shapes,
)
