"""kiln: plain Python functions over NumPy arrays, traced, lowered level by level, and run as native code.

The public API (see docs/ and the design card):

- :func:`function` / :class:`Function` / :class:`ConcreteFunction`: tracing, per-signature caching
- :class:`TensorSpec`: a fixed ``input_signature``
- array ops usable inside and outside compiled functions: :func:`matmul`, :func:`relu`, ...
- :mod:`kiln.config`: ``run_functions_eagerly``
- :func:`register_dialect`, :func:`register_pass`: extend kiln-opt and the pipelines
"""

from kiln import config
from kiln.frontend.array_ops import (
    abs,
    cast,
    concat,
    constant,
    exp,
    log,
    matmul,
    maximum,
    minimum,
    ones,
    ones_like,
    reduce_max,
    reduce_mean,
    reduce_min,
    reduce_sum,
    relu,
    reshape,
    sigmoid,
    sqrt,
    tanh,
    transpose,
    where,
    zeros,
    zeros_like,
)
from kiln.frontend.concrete import ConcreteFunction, KilnCompileError
from kiln.frontend.function import Function, function
from kiln.frontend.signature import TensorSpec
from kiln.registry import register_dialect, register_pass

__version__ = "0.1.0"

__all__ = [
    "ConcreteFunction",
    "Function",
    "KilnCompileError",
    "TensorSpec",
    "abs",
    "cast",
    "concat",
    "config",
    "constant",
    "exp",
    "function",
    "log",
    "matmul",
    "maximum",
    "minimum",
    "ones",
    "ones_like",
    "reduce_max",
    "reduce_mean",
    "reduce_min",
    "reduce_sum",
    "register_dialect",
    "register_pass",
    "relu",
    "reshape",
    "sigmoid",
    "sqrt",
    "tanh",
    "transpose",
    "where",
    "zeros",
    "zeros_like",
]
