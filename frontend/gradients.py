"""``kiln.grad`` and ``kiln.value_and_grad``: JAX's function transformations, compiled.

``kiln.value_and_grad(f, argnums)`` is a :class:`kiln.Function` whose trace runs ``f``'s
Python body on the traced arguments and then builds, with :func:`kiln.passes.graph_autodiff.backprop`,
the gradient of its scalar result with respect to the arguments ``argnums`` names. The gradient
is ``graph`` ops in the same trace: lowered, compiled and cached with the rest. ``f`` must
return one float scalar (a 0-d array), as in JAX; differentiated arguments must be float arrays,
Python floats (which become float64 scalars, instead of trace-time constants) or pytrees of
them (dicts, lists, tuples, nested), whose gradient has the same structure, as in JAX.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from kiln import config
from kiln.frontend import calls, mutation, pytree, trace_context
from kiln.frontend.function import Function
from kiln.frontend.tensor import Tensor, as_tensor
from kiln.passes.graph_autodiff import Adjoints, AutodiffError, backprop, differentiable

ArgNums = int | Sequence[int]

#: graph ops without a gradient, as the user wrote them (the op spelling is kiln's IR)
_NUMPY_SPELLING = {
    'graph.scan "mul"': "np.cumprod (np.multiply.accumulate)",
    'graph.scan "max"': "np.maximum.accumulate",
    'graph.scan "min"': "np.minimum.accumulate",
    'graph.scatter "mul"': "np.multiply.at",
    'graph.scatter "max"': "np.maximum.at",
    'graph.scatter "min"': "np.minimum.at",
    "graph.sort": "np.sort",
}


def refusal(error: AutodiffError) -> str:
    """``error``'s message naming the NumPy function the user called rather than its graph op."""
    text = str(error)
    for op, numpy in _NUMPY_SPELLING.items():
        text = text.replace(op, numpy)
    return text


def value_and_grad(f: Callable[..., Any], argnums: ArgNums = 0) -> Function:
    """A compiled function returning ``(f(*args), gradient)``; the gradient is one array (or a
    structure like the argument's, for a dict, list or tuple of arrays) for an int ``argnums``,
    a tuple of them for a sequence. ``f`` may be a :class:`kiln.Function` (its target,
    ISA and AutoGraph setting carry over) or a plain Python function."""
    return transform(f, argnums, with_value=True)


def grad(f: Callable[..., Any], argnums: ArgNums = 0) -> Function:
    """A compiled function returning the gradient of ``f``'s scalar result with respect to the
    arguments ``argnums`` names (one array, or one structure like the argument's, for an int; a
    tuple of them for a sequence)."""
    return transform(f, argnums, with_value=False)


def transform(f: Callable[..., Any], argnums: ArgNums, with_value: bool, autograph: bool | None = None) -> Function:
    """:func:`grad` (``with_value`` False) or :func:`value_and_grad`; ``autograph`` overrides
    whether ``f``'s Python control flow is converted (default: ``f``'s own setting, else yes)."""
    single = isinstance(argnums, int)
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    if not nums or not all(isinstance(i, int) for i in nums):
        raise TypeError(f"kiln.grad: argnums must be an int or a non-empty sequence of ints, got {argnums!r}")
    options: dict[str, Any] = {}
    python = f
    if isinstance(f, Function):
        python = f.python_function
        options = {"target": f.target, "isa": f.isa, "autograph": f.autograph}
    converting = options.pop("autograph", True) if autograph is None else autograph
    name = getattr(python, "__name__", "f")
    params = _parameter_names(python)

    @functools.wraps(python)
    def transformed(*args: Any, **kwargs: Any) -> Any:
        body = _converted(python) if converting else python
        args = _fresh_sources(args, nums)
        trees = [_sources(args, i, name, params) for i in nums]
        start = [leaf.value for leaves, _ in trees for leaf in leaves]
        value = as_tensor(body(*args, **kwargs))
        if value.shape != () or not differentiable(value.value):
            raise TypeError(
                f"kiln.grad: {name} must return a float scalar (a 0-d array) to be differentiated, got "
                f"{value.dtype} of shape {value.shape}"
            )
        ctx = trace_context.require()
        try:
            with mutation.reading_by_value():
                grads = backprop(value.value, start, ctx.emit, callees=calls.callee_of)
        except AutodiffError as e:
            raise NotImplementedError(f"kiln.grad of {name}: {refusal(e)}") from None
        zeros = Adjoints(ctx.emit)
        flat = iter([Tensor(g if g is not None else zeros.const(0.0, s)) for g, s in zip(grads, start, strict=True)])
        out = tuple(pytree.unflatten(tree, flat) for _, tree in trees)
        gradient = out[0] if single else out
        return (value, gradient) if with_value else gradient

    transformed.__name__ = transformed.__qualname__ = f"{'value_and_grad' if with_value else 'grad'}_{name}"
    return _GradFunction(transformed, nums, autograph=False, **options)


def _converted(fn: Callable[..., Any]) -> Callable[..., Any]:
    from kiln.frontend.concrete import _autograph

    return _autograph(fn)


def _fresh_sources(args: tuple[Any, ...], nums: tuple[int, ...]) -> tuple[Any, ...]:
    """The differentiated arguments as new values (``x * 1.0``, exact) where the trace already uses
    them: called inside a kiln.function as ``g(x, x * 2)``, the gradient with respect to ``p`` must
    not also flow back through the caller's ``x * 2`` (was: 3x for ``sum(p * q)``, kiln.fuzz)."""
    out = list(args)
    for i in nums:
        arg = args[i] if -len(args) <= i < len(args) else None
        if isinstance(arg, Tensor) and differentiable(arg.value) and any(True for _ in arg.value.uses):
            out[i] = arg * 1.0
    return tuple(out)


def _parameter_names(fn: Callable[..., Any]) -> list[str]:
    """``fn``'s positional parameter names, to name a refused leaf as the user wrote it."""
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return []
    return [p.name for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]


def _sources(args: tuple[Any, ...], i: int, name: str, params: list[str]) -> tuple[list[Tensor], pytree.TreeDef]:
    """The float leaves of argument ``i`` (an array, or a dict, list or tuple of them, nested)
    and its structure, which the gradient takes; a leaf without a gradient is refused by path."""
    if not -len(args) <= i < len(args):
        raise TypeError(f"kiln.grad: argnums {i} is out of range for the {len(args)} arguments of {name}")
    arg = args[i]
    leaves, tree = pytree.flatten(arg)
    if tree.kind == "leaf":
        _check_leaf(arg, f"argument {i} of {name}")
        return leaves, tree
    k = i % len(args)
    root = params[k] if k < len(params) else f"argument {i}"
    for path, leaf in zip(_paths(arg, root), leaves, strict=True):
        _check_leaf(leaf, f"{path} (in argument {i} of {name})")
    return leaves, tree


def _paths(obj: Any, prefix: str) -> list[str]:
    """The leaves' paths in ``obj`` (``params['b'][1]``), in :func:`pytree.flatten`'s order."""
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return [p for field, x in zip(obj._fields, obj) for p in _paths(x, f"{prefix}.{field}")]
    if isinstance(obj, (tuple, list)):
        return [p for k, x in enumerate(obj) for p in _paths(x, f"{prefix}[{k}]")]
    if isinstance(obj, dict):
        return [p for key, x in obj.items() for p in _paths(x, f"{prefix}[{key!r}]")]
    return [prefix]


def _check_leaf(leaf: Any, where: str) -> None:
    if isinstance(leaf, Tensor) and differentiable(leaf.value):
        return
    if isinstance(leaf, Tensor):
        what = f"a Python {_PYTHON_NUMBERS.get(leaf.dtype, leaf.dtype)}" if leaf.weak else f"an array of {leaf.dtype}"
    else:
        what = f"a {'Python ' if type(leaf).__name__ in _PYTHON_NUMBERS.values() else ''}{type(leaf).__name__}"
    hint = (" (a Python float outside a list is a trace-time constant: pass np.float64(...), or hold "
            "the numbers in a list)") if type(leaf) is float else ""
    raise TypeError(f"{trace_context.here()}: kiln.grad: {where} is {what}; gradients are taken with respect "
                    f"to float arrays{hint}")


#: the Python number type each dtype of a list's numbers comes from (kiln.frontend.list_numbers)
_PYTHON_NUMBERS = {np.dtype(np.bool_): "bool", np.dtype(np.int64): "int", np.dtype(np.float64): "float",
                   np.dtype(np.complex128): "complex"}


class _GradFunction(Function):
    """A Function whose differentiated Python-float arguments become float64 scalars, so that
    ``kiln.grad(f)(1.0)`` differentiates (a Python float is otherwise a trace-time constant)."""

    def __init__(self, python_function: Callable[..., Any], nums: tuple[int, ...], **options: Any) -> None:
        super().__init__(python_function, **options)
        self._nums = nums

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if any(type(args[i]) is float for i in self._nums if -len(args) <= i < len(args)):
            args = tuple(np.float64(a) if type(a) is float and (i in self._nums or i - len(args) in self._nums) else a
                         for i, a in enumerate(args))
        if config.functions_run_eagerly():
            # a gradient is a transformation of the traced graph: there is no plain-NumPy way to
            # run it, so it is compiled even when functions run eagerly (docs/gradients.md)
            return self._concrete_for(args, kwargs)(*args, **kwargs)
        return super().__call__(*args, **kwargs)
