"""The runtime operators generated code calls as ``ag__.<name>``: Python for Python values, staging for tensors.
(``ag__.call``, which converts the functions converted code calls, is the transpiler's.)"""

from kiln.frontend.autograph.operators.comprehensions import (
    comprehension_end,
    comprehension_iterable,
    comprehension_next,
    comprehension_put,
    comprehension_stages,
    comprehension_start,
)
from kiln.frontend.autograph.operators.control_flow import for_stmt, if_exp, if_stmt, returned, returning, while_stmt
from kiln.frontend.autograph.operators.exceptions import assert_, raise_, run_time_text
from kiln.frontend.autograph.operators.logical import and_, compare, not_, or_
from kiln.frontend.autograph.counted_iterables import enumerate_, zip_
from kiln.frontend.autograph.operators.py_builtins import (
    all_,
    any_,
    bool_,
    complex_,
    float_,
    int_,
    len_,
    list_,
    max_,
    min_,
    range_,
    shape_,
    size_,
    sum_,
)
from kiln.frontend.autograph.operators.python_stores import (
    in_place,
    store_attribute,
    store_attribute_augmented,
    store_global,
    store_nonlocal,
)
from kiln.frontend.autograph.operators.subscripts import getitem, slice_, store, store_augmented
from kiln.frontend.autograph.operators.variables import NOT_RETURNED, Undefined, get_no_state, set_no_state

__all__ = [
    "NOT_RETURNED",
    "Undefined",
    "all_",
    "and_",
    "any_",
    "assert_",
    "bool_",
    "compare",
    "comprehension_end",
    "comprehension_iterable",
    "comprehension_next",
    "comprehension_put",
    "comprehension_stages",
    "comprehension_start",
    "complex_",
    "float_",
    "for_stmt",
    "get_no_state",
    "getitem",
    "if_exp",
    "if_stmt",
    "in_place",
    "int_",
    "len_",
    "list_",
    "max_",
    "min_",
    "not_",
    "or_",
    "raise_",
    "range_",
    "enumerate_",
    "zip_",
    "returned",
    "returning",
    "run_time_text",
    "set_no_state",
    "shape_",
    "size_",
    "slice_",
    "store",
    "store_attribute",
    "store_attribute_augmented",
    "store_augmented",
    "store_global",
    "store_nonlocal",
    "sum_",
    "while_stmt",
]
