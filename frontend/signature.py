"""Trace-cache keys: which calls can share one compiled function.

NumPy arrays and NumPy scalars are tensors and contribute ``(dtype, shape)``;
Python scalars and other hashable values are trace-time constants and
contribute their value; lists, tuples and dicts contribute their structure and
their elements' keys. ``TensorSpec`` fixes a signature with dynamic dims.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.dialects.builtin import TensorType

from kiln.dialects.graph import tensor_type
from kiln.frontend import pytree
from kiln.frontend.dtypes import to_element


@dataclass(frozen=True)
class TensorSpec:
    """The type of a tensor argument: ``shape`` with ``None`` for dynamic dims
    (``shape=None`` for any rank), and a dtype (default float32)."""

    shape: tuple[int | None, ...] | None
    dtype: np.dtype

    def __init__(self, shape: Sequence[int | None] | None, dtype: Any = "float32"):
        object.__setattr__(self, "shape", None if shape is None else tuple(shape))
        object.__setattr__(self, "dtype", np.dtype(dtype))

    @classmethod
    def from_value(cls, value: Any) -> TensorSpec:
        arr = np.asarray(value)
        return cls(arr.shape, arr.dtype)

    def is_compatible_with(self, value: Any) -> bool:
        arr_dtype, arr_shape = _dtype_and_shape(value)
        if arr_dtype != self.dtype:
            return False
        if self.shape is None:
            return True
        return len(arr_shape) == len(self.shape) and all(
            s is None or s == d for s, d in zip(self.shape, arr_shape)
        )

    def tensor_type(self) -> TensorType:
        if self.shape is None:
            raise NotImplementedError("TensorSpec(shape=None) (any rank) is not supported yet")
        return tensor_type(to_element(self.dtype), [-1 if d is None else d for d in self.shape])

    def __repr__(self) -> str:
        return f"TensorSpec(shape={self.shape}, dtype={self.dtype.name})"


def is_tensor_value(value: Any) -> bool:
    return isinstance(value, (np.ndarray, np.generic))


def _dtype_and_shape(value: Any) -> tuple[np.dtype, tuple[int, ...]]:
    if isinstance(value, np.ndarray):
        return value.dtype, value.shape
    if isinstance(value, np.generic):
        return value.dtype, ()
    arr = np.asarray(value)
    return arr.dtype, arr.shape


@dataclass(frozen=True)
class CallSignature:
    """What a call looks like to the cache: its key and its tensor leaves' specs."""

    key: Any
    specs: tuple[TensorSpec, ...]
    #: args/kwargs with each tensor leaf replaced by pytree.TENSOR_SLOT
    args: tuple[Any, ...]
    kwargs: dict[str, Any]


def _leaf_key(leaf: Any) -> Any:
    if isinstance(leaf, np.ndarray):
        return ("tensor", leaf.dtype.str, leaf.shape)
    if isinstance(leaf, np.generic):
        return ("tensor", leaf.dtype.str, ())
    if isinstance(leaf, TensorSpec):
        return ("tensor", leaf.dtype.str, leaf.shape)
    try:
        hash(leaf)
    except TypeError:
        raise TypeError(
            f"kiln.function: argument of type {type(leaf).__name__} is neither an array nor hashable; "
            "pass NumPy arrays, Python scalars, or hashable values"
        ) from None
    # bool/int/float are equal across types (1 == 1.0 == True): key by type too
    return ("value", type(leaf), leaf)


def signature_of(args: Sequence[Any], kwargs: dict[str, Any]) -> CallSignature:
    """Key for a call with concrete values (or TensorSpecs standing for tensors)."""
    leaves, tree = pytree.flatten((tuple(args), kwargs))
    specs: list[TensorSpec] = []
    slotted: list[Any] = []
    for leaf in leaves:
        if is_tensor_value(leaf) or isinstance(leaf, TensorSpec):
            spec = leaf if isinstance(leaf, TensorSpec) else TensorSpec.from_value(leaf)
            to_element(spec.dtype)  # unsupported dtypes fail here, before tracing
            specs.append(spec)
            slotted.append(pytree.TENSOR_SLOT)
        else:
            slotted.append(leaf)
    key = (tree, tuple(_leaf_key(leaf) for leaf in leaves))
    new_args, new_kwargs = pytree.unflatten(tree, iter(slotted))
    return CallSignature(key=key, specs=tuple(specs), args=tuple(new_args), kwargs=new_kwargs)


def tensor_leaves(args: Sequence[Any], kwargs: dict[str, Any]) -> list[Any]:
    """The tensor arguments of a call, in the order the compiled function takes them."""
    leaves, _ = pytree.flatten((tuple(args), kwargs))
    return [leaf for leaf in leaves if is_tensor_value(leaf)]
