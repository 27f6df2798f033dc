"""One traced, compiled signature of a ``kiln.function``.

Holds the traced ``graph`` module, lowers a copy of it stage by stage (the IR
of every stage stays printable through :meth:`ConcreteFunction.lowered`),
emits and compiles C, and calls it with NumPy arrays: inputs are passed
without copies when already C-contiguous with the traced dtype, outputs are
allocated here and filled by the compiled code (destination passing).
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable, Sequence
from io import StringIO
from typing import TYPE_CHECKING, Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr, TensorType
from xdsl.printer import Printer
from xdsl.utils.exceptions import DiagnosticException, VerifyException

from kiln import pipelines
from kiln.dialects.graph import shape_of
from kiln.dialects.ir_utils import describe_location
from kiln.backends.loader import python_entry, signature_of
from kiln.dialects.contracts import C_SYMBOL_ATTR, RESULT_LENGTHS_ATTR, USER_PREFIX, result_lengths
from kiln.frontend.ir_key import ir_digest
from kiln.frontend import (argument_containers, array_types, dynamic_shapes, plan_cache, progress, pytree, result_kinds,
                           retracing, unknown_rank)
from kiln.frontend.call_forms import CallForm
from kiln.frontend.dtypes import from_element
from kiln.frontend.signature import CallSignature, tensor_leaves
from kiln.frontend.tracer import TracedGraph, trace_graph
from kiln.dialects.target import resolve_isa, set_module_isa
from kiln.backends.targets import (OUTPUT_ARRAY, OUTPUT_KIND_FLAG, OUTPUT_NUMPY_SCALAR, OUTPUT_PYTHON_NUMBER,
                                   get_backend)
from kiln.universe import make_context, run_stage

if TYPE_CHECKING:
    from kiln.frontend.user_passes import UserPasses
    from kiln.passes.rules import RuleSet


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


def _result_builder(tree: pytree.TreeDef, kinds: Sequence[int], converted: bool,
                    statics: Sequence[tuple[int, Any]] = ()) -> Callable[[Any], Any] | None:
    """How to turn an entry's result (one array, a tuple of several, or None) into the function's
    Python result: its structure, and NumPy scalars or Python numbers where NumPy gives them
    (``kinds``, one per output leaf: see kiln.frontend.result_kinds; ``converted``: the entry returns
    the kinds itself, those known when tracing and those its kind flags say per call), with the Python values ``statics`` (``(leaf index, value)``,
    leaves that are not outputs) in their places. None when the result already is the function's."""
    n = _count_leaves(tree) - len(statics)
    if converted:
        kinds = [OUTPUT_ARRAY if kind == result_kinds.DYNAMIC else kind for kind in kinds]
    dynamic = result_kinds.DYNAMIC in kinds
    scalars = tuple(None if converted else _AS_KIND.get(kind) for kind in kinds)
    if not dynamic and not any(scalars) and not statics and (
        tree.kind == "leaf" or (tree.kind == "tuple" and n >= 2 and all(c.kind == "leaf" for c in tree.children))
    ):
        return None
    if tree.kind == "leaf" and not dynamic and not statics:
        return scalars[0]  # (the call path of a function returning one scalar)
    return functools.partial(_rebuild, tree, n, tuple(kinds), scalars, tuple(statics))


def _rebuild(tree: pytree.TreeDef, n: int, kinds: tuple[int, ...],
             scalars: tuple[Callable[[np.ndarray], Any] | None, ...], statics: tuple[tuple[int, Any], ...],
             out: Any) -> Any:
    """The function's result from its entry's: the ``n`` output leaves, then one output per leaf whose
    kind is known only at run time (result_kinds.DYNAMIC), saying which; ``statics`` go between."""
    outputs = [out] if n + kinds.count(result_kinds.DYNAMIC) == 1 else list(out or ())
    found = iter(outputs[n:])
    for j, kind in enumerate(kinds):
        convert = _AS_KIND.get(int(next(found))) if kind == result_kinds.DYNAMIC else scalars[j]
        if convert is not None:
            outputs[j] = convert(outputs[j])
    leaves = outputs[:n]
    for j, value in statics:
        leaves.insert(j, set(value) if type(value) is set else value)  # (a set of the call's own, as from Python)
    return pytree.unflatten(tree, iter(leaves))


#: a 0-d result array as NumPy's result of each non-array kind
_AS_KIND: dict[int, Callable[[np.ndarray], Any]] = {
    OUTPUT_NUMPY_SCALAR: lambda a: a[()],
    OUTPUT_PYTHON_NUMBER: lambda a: a.item(),
    # a Python number of its own type, which a merged value's dtype may not be (`c = 0` or a float64)
    result_kinds.PYTHON_BOOL: lambda a: bool(a.real.item()),
    result_kinds.PYTHON_INT: lambda a: int(a.real.item()),
    result_kinds.PYTHON_FLOAT: lambda a: float(a.real.item()),
    result_kinds.PYTHON_COMPLEX: lambda a: complex(a.item()),
}


def _callers_arrays(result: Any, returned: Sequence[tuple[int, int]], leaves: Sequence[Any]) -> Any:
    """``result`` with the caller's array where the function returned an argument array itself
    (``return a`` after sorting ``a`` in place is ``a`` in Python, not a copy of it); the output
    holds the same contents, and an argument converted for the call (another dtype) keeps the copy."""
    outputs, tree = pytree.flatten(result)
    for j, i in returned:
        arg, got = leaves[i], outputs[j]
        if (type(arg) is np.ndarray and type(got) is np.ndarray and arg.dtype == got.dtype
                and arg.shape == got.shape):
            outputs[j] = arg
    return pytree.unflatten(tree, iter(outputs))


def _sameness_outputs(out: Any, returned: tuple[tuple[int, int], ...], maybe: tuple[tuple[int, int], ...]
                      ) -> tuple[Any, tuple[tuple[int, int], ...]]:
    """An entry's result less its last outputs, one flag per pair of ``maybe`` (a result leaf that
    is an argument array on some paths only), and ``returned`` with the pairs whose flag is true."""
    rest, flags = out[:-len(maybe)], out[-len(maybe):]
    taken = tuple(pair for pair, flag in zip(maybe, flags) if bool(flag))
    return (rest[0] if len(rest) == 1 else tuple(rest)), returned + taken


def _count_leaves(tree: pytree.TreeDef) -> int:
    return 1 if tree.kind == "leaf" else sum(_count_leaves(c) for c in tree.children)


def _check_writable(name: str, leaves: Sequence[Any], written: Sequence[int]) -> None:
    """The arrays a function writes must be NumPy arrays it may write, as NumPy requires."""
    for i in written:
        value = leaves[i]
        if not isinstance(value, np.ndarray):
            raise TypeError(
                f"{name} writes to its argument {i}, which must then be a NumPy array (got {type(value).__name__}): "
                "a write to a Python number or list could not reach the caller"
            )
        if not value.flags.writeable:
            raise ValueError(f"{name}: assignment destination is read-only (argument {i})")


def shared_arguments(leaves: Sequence[Any], written: Sequence[int]) -> tuple[tuple[int, int], ...]:
    """``(j, i)`` for each array argument ``j`` that is the same array as an earlier one ``i``, when
    the function writes one of them (it is then traced as one array). Arrays that overlap
    otherwise are refused: kiln cannot give NumPy's answer for them yet."""
    arrays = [(i, v) for i, v in enumerate(leaves) if isinstance(v, np.ndarray)]
    pairs: list[tuple[int, int]] = []
    for a, (i, x) in enumerate(arrays):
        for j, y in arrays[a + 1:]:
            if (i not in written and j not in written) or not np.shares_memory(x, y):
                continue
            same = (x.__array_interface__["data"][0] == y.__array_interface__["data"][0] and x.shape == y.shape
                    and x.strides == y.strides and x.dtype == y.dtype)
            if not same:
                raise NotImplementedError(
                    f"arguments {i} and {j} overlap in memory as different views, and the function writes one of "
                    "them: kiln does not support that yet (pass a copy, or the same array for both)"
                )
            if not any(k == j for k, _ in pairs):
                pairs.append((j, i))
    return tuple(pairs)


def argument_layouts(leaves: Sequence[Any], indices: Sequence[int]) -> tuple[tuple[int, tuple[int, ...]], ...]:
    """``(i, element strides)`` of the arrays among ``leaves[i]`` (``i`` in ``indices``) that are not C-contiguous."""
    out = []
    for i in indices:
        value = leaves[i] if i < len(leaves) else None
        if isinstance(value, np.ndarray) and not value.flags.c_contiguous:
            out.append((i, tuple(s // value.itemsize for s in value.strides)))
    return tuple(out)


def _exact(value: Any, dtype: np.dtype[Any]) -> np.ndarray:
    """``value`` as what native entries take: a C-contiguous, aligned ndarray of ``dtype``."""
    arr = np.asarray(value, dtype=dtype, order="C")
    return arr if arr.flags.aligned else arr.copy()


def _autograph(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` converted by AutoGraph; generators and coroutines, which cannot be staged, are refused."""
    from kiln.frontend.autograph import conversion_info, convert, escapes
    from kiln.frontend.autograph.libraries import library_reason

    converted = convert(fn)
    if converted is fn and inspect.isfunction(fn):
        reason = conversion_info(fn).reason
        if inspect.isgeneratorfunction(fn) or inspect.iscoroutinefunction(fn):
            raise TypeError(f"kiln.function: {reason}")
        if fn.__name__ != "<lambda>" and library_reason(fn) is None:  # e.g. defined by exec: say so
            warnings.warn(f"kiln.function: Python control flow on tensors will fail: {reason}",
                          stacklevel=retracing.user_stacklevel())
    return escapes.guarded(fn, converted)


def _report_pass(index: int, total: int, name: str) -> None:
    progress.step(f"pass {index}/{total} {name}")


class KilnCompileError(Exception):
    """Lowering or compiling a traced function failed; the message names the user's line."""


class ConcreteFunction:
    """A ``kiln.function`` specialised to one signature: IR at every stage, source, native code."""

    def __init__(
        self,
        traced: TracedGraph,
        signature: CallSignature,
        target: str,
        isa: str | None = None,
        erasure: unknown_rank.Erasure | None = None,
        rules: RuleSet | None = None,
        passes: UserPasses | None = None,
    ):
        self._traced = traced
        #: the user's rules (kiln.function(rules=...)), applied to the graph before lowering
        self.rules = rules
        #: the user's passes by stage (kiln.function(passes=...))
        self.passes = passes
        #: how calls flatten arguments of unknown rank and shape such results (None: no such arguments)
        self._erasure = erasure
        self.signature = signature
        self.target = target
        #: the SIMD ISA of the C target (None: $KILN_ISA, else the host's)
        self.isa = isa
        self._backend = get_backend(target)
        self.name = traced.func_op.sym_name.data
        self._ir: str | None = None
        self._stages: dict[str, str] = {}
        self._source: str | None = None
        self._lowered_module: ModuleOp | None = None
        self._key_ir: str | None = None
        self._entry: Callable[..., Any] | None = None
        #: the ctypes entry used while the native entry extension is being built (first compile on a machine)
        self._interim: Callable[..., Any] | None = None
        #: whether the native entry takes a NumPy scalar for a 0-d array (kiln_entry.c does)
        self.entry_takes_numpy_scalars = False
        #: the backend's final native entry (None before it, or where calls take another): what
        #: call forms wrap (see form_entry)
        self._native: Callable[..., Any] | None = None
        outputs = traced.func_op.function_type.outputs.data
        self._out_shapes: list[tuple[int, ...]] = []
        self._out_dtypes: list[np.dtype] = []
        for t in outputs:
            assert isinstance(t, TensorType)
            self._out_shapes.append(shape_of(t))
            self._out_dtypes.append(from_element(t.get_element_type()))
        #: captured kiln.Variables: their buffers follow the tensor arguments of every call
        self._variable_buffers = tuple(v.buffer for v in traced.variables)
        self._in_dtypes = [spec.dtype for spec in signature.specs] + [b.dtype for b in self._variable_buffers]
        self._rebuild = _result_builder(traced.output_tree, traced.output_kinds, converted=False,
                                        statics=traced.statics)
        #: the native entry's arguments are the call's: Function may call it directly (set once
        #: compiled), its results rebuilt
        self._direct = not signature.kwargs and all(arg is pytree.TENSOR_SLOT for arg in signature.args)
        #: the same for a bound method's call: the instance first (no tensors in it), then arrays
        self._direct_after_instance = (
            not signature.kwargs and len(signature.args) > 0
            and all(leaf is not pytree.TENSOR_SLOT for leaf in pytree.flatten(signature.args[0])[0])
            and all(arg is pytree.TENSOR_SLOT for arg in signature.args[1:])
        )

    # ------------------------------------------------------------------ construction

    @classmethod
    def trace(
        cls,
        fn: Callable[..., Any],
        signature: CallSignature,
        name: str,
        target: str,
        autograph: bool = True,
        isa: str | None = None,
        rules: RuleSet | None = None,
        passes: UserPasses | None = None,
    ) -> ConcreteFunction:
        """Trace ``fn`` for ``signature``; with ``autograph``, its Python control flow is converted first."""
        progress.stage(progress.TRACING)
        types = [spec.tensor_type() for spec in signature.specs]
        body = _autograph(fn) if autograph else fn
        names = _arg_names(fn, signature)
        erased = tuple(i for i, spec in enumerate(signature.specs) if spec.shape is None)
        if erased:
            body, record = unknown_rank.tracing(body, erased, names)
        try:
            traced = trace_graph(body, signature.args, signature.kwargs, types, name, names, signature.scalars,
                                 signature.numbers, signature.number_lists, signature.aliases, signature.layouts)
        except TypeError as e:
            if erased:
                unknown_rank.note_none_error(e, [names[i] for i in erased])
            raise
        # the C symbol is kiln's (kiln_user_<name>): no Python name can clash with the C library
        traced.func_op.attributes[C_SYMBOL_ATTR] = StringAttr(USER_PREFIX + name)
        if any(isinstance(t, TensorType) and -1 in shape_of(t) for t in traced.func_op.function_type.outputs.data):
            run_stage(make_context(), traced.module, "graph")  # results the data sizes get a bound
            if RESULT_LENGTHS_ATTR in traced.func_op.attributes and target != "c":
                padded = result_lengths(traced.func_op.attributes[RESULT_LENGTHS_ATTR])[0][0]  # type: ignore[arg-type]
                where = describe_location(traced.func_op.body.block.last_op.operands[padded].owner.location)
                raise KilnCompileError(
                    f"{where}: {name}: returning an array whose length only the data decides (x[mask], np.nonzero, a "
                    f"slice with traced bounds) is supported on target 'c' only, not {target!r}; return a fixed-size "
                    "array instead (np.where(mask, x, 0), or a buffer of the largest size and a count)"
                )
        erasure = None
        if erased:
            erasure = unknown_rank.Erasure(
                name, tuple(names), erased, tuple(dict.fromkeys(record.same_shape)), tuple(record.outputs)
            )
        return cls(traced, signature, target, isa, erasure, rules, passes)

    # ------------------------------------------------------------------ the levels

    @property
    def traced(self) -> TracedGraph:
        """The trace: the graph module and function, and how results are rebuilt (kiln.dask splits it)."""
        return self._traced

    @property
    def layout_arguments(self) -> tuple[int, ...]:
        """The tensor arguments whose memory layout the trace depends on (whether ``x.ravel()`` is
        a view, say): a call with one of them not C-contiguous needs a trace with its strides."""
        return self._traced.layout_arguments

    @property
    def written_arguments(self) -> tuple[int, ...]:
        """The tensor arguments (by leaf index) the function writes: the caller's arrays change."""
        return self._traced.written_arguments

    @property
    def ir(self) -> str:
        """The graph IR as traced, printed on first use (a large function's print costs as much as a pass)."""
        if self._ir is None:
            self._ir = _print(self._traced.module, debuginfo=False)
        return self._ir

    def lowered(self, stage: str) -> str:
        """The IR after the named stage: ``graph``, then the target's stages (C: tensor, buffer, loops)."""
        stages = ("graph", *self._backend.stages)
        if stage not in stages:
            raise ValueError(f"unknown stage {stage!r}; stages for target {self.target!r} are {', '.join(stages)}")
        if stage == "graph":
            return self.ir
        if stage not in self._stages:
            self._lower_all(keep_stages=True)
        return self._stages[stage]

    @property
    def source(self) -> str:
        """The emitted source (C, or CUDA for ``target="cuda"``)."""
        if self._source is None:
            self._lower_all()
        assert self._source is not None
        return self._source

    def _located_ir(self) -> str:
        """The graph IR with locations, as ``kiln-opt`` reads it (``kiln compile --locations``)."""
        return _print(self._traced.module, debuginfo=True)

    def _plan_key_ir(self) -> str:
        """The digest of the graph IR with locations (:func:`kiln.frontend.ir_key.ir_digest`):
        what the plan cache keys on. It tells apart what the generic printed form does, without
        printing it (0.7-5 ms of a warm start: 0.3-1.5 for the digest)."""
        if self._key_ir is None:
            self._key_ir = ir_digest(self._traced.module)
        return self._key_ir

    def _lower_all(self, keep_stages: bool = False) -> None:
        # Lower a clone of the traced module: what `kiln-opt -p graph-to-c -t c` parses from the
        # printed graph IR (locations included), without the parse, which took longer than the
        # passes on large functions (channel_flow: 1.7 s). tests/test_function.py checks that
        # both paths give the same C. The text of each stage is kept only when asked for (printing a large module costs
        # as much as a pass): a call that compiles needs only the source.
        # verified here, before it is lowered, not when traced: a warm start whose IR has a plan
        # (the same IR, verified by the process that lowered it) skips it (1-5 ms, issue 39)
        try:
            self._traced.module.verify()
        except VerifyException as e:
            raise KilnCompileError(f"traced IR of {self.name} does not verify: {e}") from e
        ctx = make_context()
        plan_cache.keep_rule_syntax()  # kiln's rule files parsed once per machine, not per process
        module = self._traced.module.clone()
        try:
            if self.target == "c":
                set_module_isa(module, self.isa)
            if self.rules is not None:
                self.rules.apply(module)
            if self.passes is not None:
                self.passes.apply(ctx, module, "graph")
            for stage in self._backend.stages:
                progress.stage(progress.lowering(stage))
                run_stage(ctx, module, stage, _report_pass)
                if self.passes is not None:
                    self.passes.apply(ctx, module, stage)
                if keep_stages:
                    self._stages[stage] = str(module)
            progress.stage(progress.emitting(self.target))
            self._source = self._backend.emit(module)
            self._lowered_module = module
        except DiagnosticException as e:
            raise KilnCompileError(f"compiling {self.name}: {e}") from e

    def _compile(self) -> Callable[..., Any]:
        """Emit, compile and load the native entry; a warm start finds the emitted source in the
        plan cache (no lowering) and the shared object in the toolchain's cache (no compiler)."""
        shapes = dynamic_shapes.analyze(self._traced.func_op)
        if shapes is not None:  # result sizes and size checks per call (kiln.frontend.dynamic_shapes)
            if shapes.unknown() is not None:
                raise KilnCompileError(shapes.unknown())
            native = self._built_and_loaded()
            self._entry = shapes.entry(native, self._in_dtypes, self._out_dtypes)
            if self._erasure is not None:
                self._entry = self._erasure.wrap(self._entry)
            return self._entry
        if self._backend.entry is None:
            native = self._built_and_loaded()
            self._entry = python_entry(native, self._in_dtypes, list(zip(self._out_dtypes, self._out_shapes)))
            return self._entry
        if self._interim is not None and not (self._backend.entry_ready and self._backend.entry_ready()):
            return self._interim  # the native entry extension is still being built
        target = f"{self.target}:{resolve_isa(self.isa)}" if self.target == "c" else self.target
        # the pipeline as run: kiln's stages (an edited STAGES served stale C), the user's rules
        # (their text and natives' code) and passes (spec and code)
        target += f"+stages:{pipelines.stages_fingerprint(self._backend.stages)}"
        if self.rules is not None:
            target += f"+rules:{self.rules.fingerprint}"
        if self.passes is not None:
            target += f"+passes:{self.passes.fingerprint}"
        key = plan_cache.plan_key(self._plan_key_ir(), target)
        plan = plan_cache.load(key)
        if plan is None:
            self._prepare_backend()
            plan = plan_cache.Plan(self.source, signature_of(self._lowered_func()))
            plan_cache.store(key, plan)
        elif self._source is None:
            self._source = plan.source
        # the kinds known only per call too: the entry reads each one's flag output (OUTPUT_PER_CALL)
        kinds = [result_kinds.entry_kind(kind) for kind in self._traced.output_kinds]
        kinds += [OUTPUT_KIND_FLAG] * self._traced.output_kinds.count(result_kinds.DYNAMIC)
        kinds += [OUTPUT_ARRAY] * (len(self._out_dtypes) - len(kinds))
        progress.stage(progress.building(self.target))
        symbol = self._traced.func_op.attributes[C_SYMBOL_ATTR].data  # type: ignore[attr-defined]
        entry, final = self._backend.entry(plan.source, symbol, plan.signature, len(self._in_dtypes), wait=False,
                                           kinds=kinds)
        if final:
            self._entry, self._interim, self._native = entry, None, entry
            self.entry_takes_numpy_scalars = True
            self._rebuild = _result_builder(self._traced.output_tree, self._traced.output_kinds, converted=True,
                                            statics=self._traced.statics)
        else:  # an interim entry, while kiln's native entry extension is being built: used until it is
            self._interim = entry
        return entry

    def _built_and_loaded(self) -> Callable[..., Any]:
        """The function lowered, emitted, compiled and loaded through the backend's ``load``."""
        self._prepare_backend()
        source = self.source
        progress.stage(progress.building(self.target))
        return self._backend.load(self._backend.build(source), self._lowered_func())

    def _prepare_backend(self) -> None:
        """Tell the backend a build is coming (it may get ready while this lowers)."""
        if self._backend.prepare is not None:
            self._backend.prepare()

    def _lowered_func(self) -> func.FuncOp:
        if self._lowered_module is None:
            self._lower_all()
        assert self._lowered_module is not None
        return next(
            op for op in self._lowered_module.ops if isinstance(op, func.FuncOp) and op.sym_name.data == self.name
        )

    # ------------------------------------------------------------------ calling

    def native_entry(self, *, bound_instance: bool = False) -> Callable[..., Any] | None:
        """The compiled callable when calls may use it with their own arguments (see Function),
        or, with ``bound_instance``, with their arguments after the instance of a bound method;
        the buffers of the variables it uses are appended to them."""
        if not (self._direct_after_instance if bound_instance else self._direct) or self._needs_call():
            return None  # a function that writes its arguments checks them in __call__ (0-d arrays too)
        return self.leaf_entry()

    def _needs_call(self) -> bool:
        """Whether every call must take :meth:`__call__`, which checks the caller's arguments: the
        function writes an array or changes a list or dict it takes. (One that returns an argument
        array keeps the fast path: :meth:`leaf_entry` puts the caller's array in its result.)"""
        traced = self._traced
        return bool(traced.written_arguments or traced.scalar_rebound or traced.layout_arguments
                    or traced.container_effects)

    def leaf_entry(self) -> Callable[..., Any] | None:
        """The compiled callable over a call's tensor leaves (in ``tensor_leaves`` order), its result
        rebuilt into the function's structure: the fast path of calls with lists, tuples, dicts or
        keywords (see Function). None under the same conditions as :meth:`native_entry`."""
        if self._needs_call():
            return None
        entry = self._entry or self._compile()
        if self._entry is None:
            return None
        buffers, rebuild = self._variable_buffers, self._rebuild
        if self._traced.returned_arguments or self._traced.maybe_returned_arguments:
            def callers(*leaves: Any) -> Any:
                out = entry(*leaves, *buffers)
                return out if out is NotImplemented else self._result(out, leaves)

            return callers
        if rebuild is None:
            return (lambda *leaves: entry(*leaves, *buffers)) if buffers else entry

        def call(*leaves: Any) -> Any:
            out = entry(*leaves, *buffers)
            return out if out is NotImplemented else rebuild(out)

        return call

    def form_entry(self, form: CallForm) -> tuple[Callable[..., Any], Any] | None:
        """The compiled callable over calls of ``form`` (kiln.frontend.call_forms) with their own
        arguments, the result rebuilt: the native fast path of calls with keywords, lists, tuples
        or Python constants (see Function); and the backend's form object in it, whose ``calls``
        counts the calls that ran. None where :meth:`leaf_entry` is, where the backend has no such
        callable, and for a function returning an argument (whose result needs the leaves)."""
        traced = self._traced
        if self._needs_call() or traced.returned_arguments or traced.maybe_returned_arguments:
            return None
        if self._entry is None:
            self._compile()
        call_form = self._backend.call_form
        if self._native is None or call_form is None:
            return None
        native = call_form(self._native, form.n_args, form.kwnames, form.parts, self._variable_buffers)
        rebuild = self._rebuild
        if rebuild is None:
            return native, native

        def call(*args: Any, **kwargs: Any) -> Any:
            out = native(*args, **kwargs)
            return out if out is NotImplemented else rebuild(out)

        return call, native

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        entry = self._entry or self._compile()
        leaves = tensor_leaves(args, kwargs) if kwargs or not self._direct else args
        leaves = (*leaves, *self._variable_buffers) if self._variable_buffers else leaves
        if self._traced.written_containers:
            argument_containers.check_distinct(self.name, args, kwargs)
        written = self._traced.written_arguments
        if written:
            _check_writable(self.name, leaves, written)
            if shared_arguments(leaves, written) != self.signature.aliases:
                raise TypeError(
                    f"{self.name}: the arguments share memory differently from the call it was traced for; "
                    "call the kiln.Function, which traces each way of sharing once"
                )
        out = entry(*leaves)
        if out is NotImplemented:  # not exact ndarrays: convert (copies only when needed)
            for i, value in enumerate(leaves):
                array_types.check_plain_array(value, f"tensor argument {i} of {self.name}")
            exact = [_exact(value, dtype) for value, dtype in zip(leaves, self._in_dtypes)]
            out = entry(*exact)
            if out is NotImplemented:
                got = ", ".join(f"{np.shape(v)}" for v in leaves)
                raise TypeError(f"{self.name}: arguments of shapes {got} do not match {self!r}")
            for i in written:  # the function wrote a converted copy: the caller's array gets its contents
                if exact[i] is not leaves[i]:
                    np.copyto(leaves[i], exact[i], casting="unsafe")
        result = self._result(out, leaves)
        if self._traced.container_effects:
            return argument_containers.apply(result, self._traced.written_containers, args, kwargs)
        return result

    def _result(self, out: Any, leaves: Sequence[Any]) -> Any:
        """An entry's outputs as the function's result, with the caller's array where the function
        returned an argument array (on the paths that did, for one returned on some paths)."""
        returned = self._traced.returned_arguments
        if self._traced.maybe_returned_arguments:
            out, returned = _sameness_outputs(out, returned, self._traced.maybe_returned_arguments)
        result = out if self._rebuild is None else self._rebuild(out)
        return _callers_arrays(result, returned, leaves) if returned else result

    def __repr__(self) -> str:
        specs = ", ".join(repr(s) for s in self.signature.specs)
        return f"<kiln.ConcreteFunction {self.name}({specs})>"

