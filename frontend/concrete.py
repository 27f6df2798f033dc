"""One traced, compiled signature of a ``kiln.function``.

Holds the traced ``graph`` module, lowers a copy of it stage by stage (the IR
of every stage stays printable through :meth:`ConcreteFunction.lowered`),
emits and compiles C, and calls it with NumPy arrays: inputs are passed
without copies when already C-contiguous with the traced dtype, outputs are
allocated here and filled by the compiled code (destination passing).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from io import StringIO
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import DiagnosticException, VerifyException

from kiln import pipelines
from kiln.dialects.graph import shape_of
from kiln.frontend import pytree
from kiln.frontend.dtypes import from_element
from kiln.frontend.signature import CallSignature, tensor_leaves
from kiln.frontend.tracer import TracedGraph, trace_graph
from kiln.backends.targets import get_backend
from kiln.registry import make_context


def _print(module: ModuleOp, debuginfo: bool) -> str:
    out = StringIO()
    Printer(stream=out, print_debuginfo=debuginfo).print_op(module)
    return out.getvalue() + "\n"


def _arg_names(fn: Callable[..., Any], signature: CallSignature) -> list[str]:
    """Parameter names for the tensor arguments that are passed directly (``""`` for nested ones)."""
    try:
        params = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        params = []
    names: list[str] = []
    for i, arg in enumerate(signature.args):
        leaves, _ = pytree.flatten(arg)
        direct = len(leaves) == 1 and leaves[0] is pytree.TENSOR_SLOT and i < len(params)
        names.extend([params[i]] if direct else ["" for leaf in leaves if leaf is pytree.TENSOR_SLOT])
    for key, arg in signature.kwargs.items():
        leaves, _ = pytree.flatten(arg)
        names.extend([key] if len(leaves) == 1 and leaves[0] is pytree.TENSOR_SLOT else ["" for leaf in leaves if leaf is pytree.TENSOR_SLOT])
    return names


class KilnCompileError(Exception):
    """Lowering or compiling a traced function failed; the message names the user's line."""


class ConcreteFunction:
    """A ``kiln.function`` specialised to one signature: IR at every stage, source, native code."""

    def __init__(self, traced: TracedGraph, signature: CallSignature, target: str):
        self._traced = traced
        self.signature = signature
        self.target = target
        self._backend = get_backend(target)
        self.name = traced.func_op.sym_name.data
        self.ir: str = _print(traced.module, debuginfo=False)
        self._stages: dict[str, str] = {"graph": self.ir}
        self._source: str | None = None
        self._lowered_module: ModuleOp | None = None
        self._native: Callable[..., None] | None = None
        outputs = traced.func_op.function_type.outputs.data
        self._out_shapes: list[tuple[int, ...]] = []
        self._out_dtypes: list[np.dtype] = []
        for t in outputs:
            assert isinstance(t, TensorType)
            self._out_shapes.append(shape_of(t))
            self._out_dtypes.append(from_element(t.get_element_type()))
        self._in_dtypes = [spec.dtype for spec in signature.specs]

    # ------------------------------------------------------------------ construction

    @classmethod
    def trace(cls, fn: Callable[..., Any], signature: CallSignature, name: str, target: str) -> ConcreteFunction:
        types = [spec.tensor_type() for spec in signature.specs]
        traced = trace_graph(fn, signature.args, signature.kwargs, types, name, _arg_names(fn, signature))
        try:
            traced.module.verify()
        except VerifyException as e:
            raise KilnCompileError(f"traced IR of {name} does not verify: {e}") from e
        return cls(traced, signature, target)

    # ------------------------------------------------------------------ the levels

    def lowered(self, stage: str) -> str:
        """The IR after the named stage: ``graph``, then the target's stages (C: tensor, buffer, loops)."""
        stages = ("graph", *self._backend.stages)
        if stage not in stages:
            raise ValueError(f"unknown stage {stage!r}; stages for target {self.target!r} are {', '.join(stages)}")
        if stage not in self._stages:
            self._lower_all()
        return self._stages[stage]

    @property
    def source(self) -> str:
        """The emitted source (C, or CUDA for ``target="cuda"``)."""
        if self._source is None:
            self._lower_all()
        assert self._source is not None
        return self._source

    def _lower_all(self) -> None:
        # Lower the module parsed back from its text (locations included), exactly
        # what `kiln-opt -p graph-to-c -t c` sees, so both paths give the same C.
        ctx = make_context()
        module = Parser(ctx, _print(self._traced.module, debuginfo=True)).parse_module()
        try:
            for stage in self._backend.stages:
                pipelines.run_stage(ctx, module, stage)
                self._stages[stage] = str(module)
            self._source = self._backend.emit(module)
            self._lowered_module = module
        except DiagnosticException as e:
            raise KilnCompileError(f"compiling {self.name}: {e}") from e

    def _compile(self) -> Callable[..., None]:
        """Emit, compile (or find in the on-disk cache) and load the native function."""
        if any(-1 in shape for shape in self._out_shapes):
            raise NotImplementedError(f"{self.name}: results with dynamic shapes are not supported yet")
        so_path = self._backend.build(self.source)
        assert self._lowered_module is not None
        func_op = next(
            op for op in self._lowered_module.ops if isinstance(op, func.FuncOp) and op.sym_name.data == self.name
        )
        self._native = self._backend.load(so_path, func_op)
        return self._native

    # ------------------------------------------------------------------ calling

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        inputs = [
            np.asarray(value, dtype=dtype, order="C")
            for value, dtype in zip(tensor_leaves(args, kwargs), self._in_dtypes)
        ]
        outputs = [np.empty(shape, dtype) for shape, dtype in zip(self._out_shapes, self._out_dtypes)]
        native = self._native or self._compile()
        native(*inputs, *outputs)
        return pytree.unflatten(self._traced.output_tree, iter(outputs))

    def __repr__(self) -> str:
        specs = ", ".join(repr(s) for s in self.signature.specs)
        return f"<kiln.ConcreteFunction {self.name}({specs})>"

