"""``kiln.function``: trace per signature, compile, cache, call.

A :class:`Function` wraps the user's Python function. Each call computes the
call's signature key (see :mod:`kiln.frontend.signature`); a new key traces
the function into ``graph`` IR and compiles a :class:`ConcreteFunction`, an
old key reuses it. With ``kiln.config.run_functions_eagerly(True)`` the Python
function runs as plain Python on NumPy instead.
"""

from __future__ import annotations

import functools
import re
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

from kiln import config
from kiln.backends.targets import get_backend
from kiln.frontend.concrete import ConcreteFunction
from kiln.frontend.signature import CallSignature, TensorSpec, signature_of

def _c_name(name: str) -> str:
    """The traced function's symbol: its Python name, made a valid C name that clashes with nothing."""
    from kiln.backends.c.emitter import is_reserved_c_name

    ident = re.sub(r"\W", "_", name)
    if not ident or ident[0].isdigit():
        ident = "f_" + ident
    return ident + "_fn" if is_reserved_c_name(ident) else ident


class Function:
    """A Python function compiled per call signature (see :func:`function`)."""

    def __init__(
        self,
        python_function: Callable[..., Any],
        input_signature: Sequence[TensorSpec] | None = None,
        autograph: bool = True,
        target: str = "c",
    ):
        get_backend(target)  # unknown targets fail at decoration time
        if input_signature is not None:
            input_signature = tuple(input_signature)
            for spec in input_signature:
                if not isinstance(spec, TensorSpec):
                    raise TypeError(f"kiln.function: input_signature entries must be kiln.TensorSpec, got {spec!r}")
        self.python_function = python_function
        self.input_signature = input_signature
        self.autograph = autograph
        self.target = target
        self._concrete: OrderedDict[Any, ConcreteFunction] = OrderedDict()
        self.tracing_count = 0
        functools.update_wrapper(self, python_function)

    # ------------------------------------------------------------------ calling

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if config.functions_run_eagerly():
            return self.python_function(*args, **kwargs)
        sig = self._signature(args, kwargs)
        concrete = self._concrete.get(sig.key)
        if concrete is None:
            concrete = self._trace(sig)
        return concrete(*args, **kwargs)

    def get_concrete_function(self, *args: Any, **kwargs: Any) -> ConcreteFunction:
        """The compiled function for these arguments (arrays or TensorSpecs), tracing if needed."""
        if not args and not kwargs and self.input_signature is not None:
            args = self.input_signature
        sig = signature_of(args, kwargs) if self.input_signature is None else self._signature(args, kwargs)
        concrete = self._concrete.get(sig.key)
        return concrete if concrete is not None else self._trace(sig)

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        """Decorated methods bind ``self`` like plain methods; ``self`` is a trace-time value."""
        if instance is None:
            return self
        return functools.partial(self, instance)

    # ------------------------------------------------------------------ internals

    def _signature(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> CallSignature:
        if self.input_signature is None:
            return signature_of(args, kwargs)
        if kwargs or len(args) != len(self.input_signature):
            raise TypeError(
                f"{self.__name__}: input_signature has {len(self.input_signature)} arguments, "
                f"called with {len(args)} positional and {len(kwargs)} keyword arguments"
            )
        for i, (spec, value) in enumerate(zip(self.input_signature, args)):
            if not isinstance(value, TensorSpec) and not spec.is_compatible_with(value):
                raise TypeError(
                    f"{self.__name__}: argument {i} does not match input_signature: expected {spec}, "
                    f"got {TensorSpec.from_value(value)}"
                )
        return signature_of(self.input_signature, {})

    def _trace(self, sig: CallSignature) -> ConcreteFunction:
        self.tracing_count += 1
        concrete = ConcreteFunction.trace(
            self.python_function,
            sig,
            name=_c_name(getattr(self.python_function, "__name__", "kiln_fn")),
            target=self.target,
        )
        self._concrete[sig.key] = concrete
        return concrete

    def __repr__(self) -> str:
        return f"<kiln.Function {self.__name__} traces={self.tracing_count}>"


def function(
    func: Callable[..., Any] | None = None,
    *,
    input_signature: Sequence[TensorSpec] | None = None,
    autograph: bool = True,
    target: str = "c",
) -> Any:
    """Compile ``func`` on its first call per signature (usable as ``@kiln.function`` or
    ``@kiln.function(input_signature=..., target=...)``)."""

    def wrap(f: Callable[..., Any]) -> Function:
        return Function(f, input_signature=input_signature, autograph=autograph, target=target)

    return wrap if func is None else wrap(func)
