"""``kiln.function``: trace per signature, compile, cache, call.

A :class:`Function` wraps the user's Python function. Each call computes the
call's signature key (see :mod:`kiln.frontend.signature`); a new key traces
the function into ``graph`` IR and compiles a :class:`ConcreteFunction`, an
old key reuses it. With ``kiln.config.run_functions_eagerly(True)`` the Python
function runs as plain Python on NumPy instead.

The hot path of a call is the native entry the function kept for the last call (of its form, for
keywords, lists, tuples and Python constants: kiln.frontend.call_forms), called by ``__call__``,
itself native once the backend gives one; every other call takes :meth:`Function._call`.
"""

from __future__ import annotations

import functools
import inspect
import os
import re
import sys
import weakref
from dataclasses import replace
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

import numpy as np

from kiln import config
from kiln.backends.targets import get_backend
from kiln.frontend import calls, gc_pause, progress, retracing, trace_context, variables
from kiln.frontend.call_forms import form_of
from kiln.frontend.concrete import ConcreteFunction, argument_layouts, shared_arguments
from kiln.frontend.signature import CallSignature, TensorSpec, constant_key, signature_of, tensor_leaves
from kiln.frontend.tracer import REFUSALS
from kiln.frontend.user_passes import PassSpec, UserPasses, load_user_passes

if TYPE_CHECKING:
    from kiln.passes.rules import RuleSet

#: what ``rules=`` takes: a rule file (a path, or ``kiln:NAME``) or several
RuleFiles = str | os.PathLike[str] | Sequence[str | os.PathLike[str]]


def _symbol_name(python_function: Callable[..., Any]) -> str:
    """The traced function's IR symbol: its Python name made an identifier. The generated code
    names it itself (``kiln_user_<name>`` in C), so it may be any name, ``select`` or ``main``."""
    ident = re.sub(r"\W", "_", getattr(python_function, "__name__", "kiln_fn"))
    return "f_" + ident if not ident or ident[0].isdigit() else ident


_MAX_ENTRIES = 256

#: how deep a kiln.function may call itself from inside a trace (see Function._traced_call)
_MAX_TRACED_DEPTH = 64

class _TracedRecursionError(RecursionError):
    """Recursion on traced values, refused at the user's line."""


#: the kiln.functions being traced into a caller's trace, with their depth of recursion
_traced_depth: ContextVar[dict[Any, int]] = ContextVar("kiln_traced_depth", default={})


def _array_key(args: tuple[Any, ...]) -> tuple[Any, ...] | None:
    """A cheap cache key for a call whose arguments are all exact ndarrays or NumPy scalars
    (else None); scalars are marked, since the native entry takes them as 0-d arrays."""
    for a in args:
        if type(a) is not np.ndarray and not isinstance(a, np.generic):
            return None
    return tuple([(type(a) is np.ndarray, a.dtype, a.shape) for a in args])


#: Python values that are trace-time constants: part of a structured call's key by value
_CONSTANT_TYPES = (bool, int, float, complex, str, type(None))


#: Python numbers that a list argument holds as traced values
_LIST_NUMBERS = (bool, int, float, complex)

_NDARRAY = np.ndarray
_CONSTANTS = frozenset(_CONSTANT_TYPES)


def _structured_key(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[tuple[Any, ...], list[Any]] | None:
    """A cheap cache key for a call with lists, tuples, dicts or keywords (exact ndarrays, NumPy
    scalars and Python constants inside), and its tensor leaves in the compiled entry's order;
    None for anything else (namedtuples, lists of Python numbers, objects), which takes the full
    signature lookup. The entry itself checks each leaf's dtype and shape.
    The common forms (arrays, flat lists or tuples of arrays, Python constants) take a flat walk,
    a third of the general one's cost (the call with a tuple of two arrays: 1.0 -> 0.35 us)."""
    parts: list[Any] = ["flat", len(args)]
    leaves: list[Any] = []
    for x in (*args, *kwargs.values()) if kwargs else args:
        kind = type(x)
        if kind is _NDARRAY:
            parts.append(x.shape)
            leaves.append(x)
        elif kind is tuple or kind is list:
            parts.append(kind)
            parts.append(len(x))
            for v in x:
                if type(v) is not _NDARRAY:
                    return _nested_key(args, kwargs)
                parts.append(v.shape)
                leaves.append(v)
        elif kind in _CONSTANTS:
            parts.append(kind)
            parts.append(constant_key(x))
        else:
            return _nested_key(args, kwargs)
    if kwargs:
        parts.append(tuple(kwargs))
    return tuple(parts), leaves


def _nested_key(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[tuple[Any, ...], list[Any]] | None:
    """:func:`_structured_key` for any nesting, NumPy scalars and dicts."""
    parts: list[Any] = [len(args), tuple(kwargs)]
    leaves: list[Any] = []
    stack = [*kwargs.values()][::-1] + [*args][::-1]
    while stack:
        x = stack.pop()
        kind = type(x)
        if kind is np.ndarray:
            parts.append(x.shape)
            leaves.append(x)
        elif kind in _CONSTANT_TYPES:
            parts.append(kind)
            parts.append(constant_key(x))
        elif kind is list or kind is tuple:
            if kind is list and any(type(v) in _LIST_NUMBERS for v in x):
                return None  # a list's numbers are traced leaves (signature.ListNumber): full lookup
            parts.append(kind)
            parts.append(len(x))
            stack.extend(reversed(x))
        elif kind is dict:
            parts.append(tuple(x))
            stack.extend(reversed(x.values()))
        elif isinstance(x, np.generic):
            parts.append(kind)
            leaves.append(x)
        else:
            return None
    return tuple(parts), leaves


def _scalars_as_arrays(entry: Callable[..., Any]) -> Callable[..., Any]:
    """``entry`` for calls with NumPy scalars: each becomes a 0-d array (no data copy worth
    mentioning), so such calls keep the fast path instead of the full signature lookup."""

    def call(*args: Any) -> Any:
        # only NumPy scalars: a Python number is a trace-time constant and must not match
        return entry(*[np.asarray(a) if isinstance(a, np.generic) else a for a in args])

    return call


def _taking_scalars(entry: Callable[..., Any], key: tuple[Any, ...], concrete: ConcreteFunction) -> Callable[..., Any]:
    """``entry`` for calls of array key ``key``: wrapped to make NumPy scalars 0-d arrays when the
    key has scalars and the entry does not take them itself (the native one does)."""
    if all(is_array for is_array, _, _ in key) or concrete.entry_takes_numpy_scalars:
        return entry
    return _scalars_as_arrays(entry)


def _exact_zero_d(entry: Callable[..., Any], key: tuple[Any, ...], concrete: ConcreteFunction | None,
                  args: tuple[Any, ...]) -> Callable[..., Any]:
    """``entry`` for calls of array key ``key`` (those like ``args``) that takes each 0-d argument
    only as the call that traced it passed it, a 0-d array or a NumPy scalar: the other is another
    trace, whose results NumPy may give as another kind (``x.reshape(())`` is a NumPy scalar of a
    NumPy scalar, an array of a 0-d array). The native form entry of ``concrete`` checks that in
    C; without one (None: a bound method's entry, after its instance), a Python check does."""
    if all(shape != () for _, _, shape in key):
        return entry
    found = concrete.form_entry(form_of(args, {})) if concrete is not None else None
    if found is not None:
        return found[0]
    arrays = tuple(is_array for is_array, _, _ in key)

    def call(*args: Any) -> Any:
        if len(args) != len(arrays) or any((type(a) is np.ndarray) is not want for a, want in zip(args, arrays)):
            return NotImplemented
        return entry(*args)

    return call


def _load_rules(rules: RuleFiles, python_function: Callable[..., Any]) -> RuleSet:
    """The rule files, a relative path read beside the file that defines the function (as a
    module's data files are, wherever Python runs from); at the prompt, in the current directory."""
    from kiln.passes.rules import load_rules

    code = getattr(inspect.unwrap(getattr(python_function, "__func__", python_function)), "__code__", None)
    defined_in = code.co_filename if code is not None else ""
    folder = os.path.dirname(os.path.abspath(defined_in)) if os.path.isfile(defined_in) else None
    specs = [rules] if isinstance(rules, (str, os.PathLike)) else list(rules)
    return load_rules([
        os.path.join(folder, s) if folder and not os.fspath(s).startswith("kiln:") else s for s in specs
    ])


def _with_layouts(sig: CallSignature, args: tuple[Any, ...], kwargs: dict[str, Any]) -> CallSignature:
    """``sig`` tracing every array of the call that is not C-contiguous with its strides
    (``sig`` itself when there is none, or it does already)."""
    leaves = tensor_leaves(args, kwargs)
    layouts = argument_layouts(leaves, range(len(leaves)))
    if not layouts or sig.layouts:
        return sig
    return replace(sig, key=(*sig.key, ("layouts", layouts)), layouts=layouts)


class Function:
    """A Python function compiled per call signature (see :func:`function`)."""

    def __init__(
        self,
        python_function: Callable[..., Any],
        input_signature: Sequence[TensorSpec] | None = None,
        autograph: bool = True,
        target: str = "c",
        isa: str | None = None,
        rules: RuleFiles | None = None,
        passes: PassSpec | None = None,
    ):
        backend = get_backend(target)  # unknown targets fail at decoration time
        self._stages = progress.stages_of(target, backend.stages)
        if autograph:  # every trace converts: imported with the decorator, not during a first call
            import kiln.frontend.autograph  # noqa: F401
        if backend.buffer_sync is not None:
            variables.add_sync_hook(backend.buffer_sync)
        if isa is not None:
            from kiln.dialects.target import resolve_isa

            if target != "c":
                raise ValueError(f"kiln.function: isa= applies to target='c', not {target!r}")
            resolve_isa(isa)  # unknown ISAs fail at decoration time
        if input_signature is not None:
            input_signature = tuple(input_signature)
            for spec in input_signature:
                if not isinstance(spec, TensorSpec):
                    raise TypeError(f"kiln.function: input_signature entries must be kiln.TensorSpec, got {spec!r}")
        self.python_function = python_function
        self.input_signature = input_signature
        self.autograph = autograph
        self.target = target
        self.isa = isa
        #: the user's rule files, loaded and checked now (errors point at file:line:col)
        self.rules: RuleSet | None = _load_rules(rules, python_function) if rules is not None else None
        #: the user's passes by stage, checked now against the registered passes and the target's stages
        self.passes: UserPasses | None = (
            load_user_passes(passes, ("graph", *backend.stages)) if passes is not None else None
        )
        self._monitor = retracing.RetraceMonitor(python_function)
        #: traced signatures, least recently used first (see cache_limit)
        self._concrete: retracing.TraceCache[ConcreteFunction] = retracing.TraceCache(
            self.cache_limit, self._monitor.seen
        )
        #: signature keys refused when traced with C-contiguous arguments: traced with the call's layouts
        self._refused_contiguous: set[Any] = set()
        #: Python traces of the function (one per signature; one for every rank with TensorSpec(shape=None))
        self.tracing_count = 0
        #: native entries of all-ndarray calls, by _array_key, and the last one used
        self._entries: dict[tuple[Any, ...], Callable[..., Any]] = {}
        self._last_entry: Callable[..., Any] | None = None
        #: leaf entries of calls with containers, keywords or Python constants, by _structured_key,
        #: with the signature key each stands for and the entry of the call's form with its native
        #: form (ConcreteFunction.form_entry; None: none)
        self._structured: dict[tuple[Any, ...], tuple[Callable[..., Any], Any, tuple[Callable[..., Any], Any] | None]] = {}
        #: traces that write their array arguments (they take ConcreteFunction.__call__, which checks
        #: them), by _structured_key and the leaves' dtypes: such calls skip the signature lookup
        self._writing: dict[tuple[Any, ...], ConcreteFunction] = {}
        #: the form entry of the last call with keywords (kiln.frontend.call_forms), the hot path of such calls
        self._last_keywords: Callable[..., Any] | None = None
        #: the hot path's native forms (by whether they take keywords): [form, its trace's key, its
        #: calls already recorded as cache hits] (see _record_form_hits)
        self._hot_forms: dict[bool, list[Any]] = {}
        #: id(instance) -> (weak reference to it, native entry over the array arguments), for
        #: calls through bound methods (see BoundFunction)
        self._method_entries: dict[int, tuple[weakref.ref[Any], Callable[..., Any]]] = {}
        functools.update_wrapper(self, python_function)

    # ------------------------------------------------------------------ calling

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        # Hot path: the native entry of the last call checks the arguments itself (exact
        # ndarrays of the traced dtypes and shapes; for a call form, its structure and constants
        # too) and answers NotImplemented otherwise. Not while kiln runs functions eagerly or
        # traces (a call inside a trace is traced into it, whatever its arguments). The backend's
        # native call takes these steps in place of this method once it has one (see _go_native).
        if kwargs:
            return self._call_with_keywords(args, kwargs)
        entry = self._last_entry
        if entry is not None and not config.functions_run_eagerly() and not trace_context.in_progress:
            out = entry(*args)
            if out is not NotImplemented:
                return out
        return self._call(args, kwargs)

    def _call_with_keywords(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """The hot path of a call with keywords: the form entry of the last such call."""
        entry = self._last_keywords
        if entry is not None and not config.functions_run_eagerly() and not trace_context.in_progress:
            out = entry(*args, **kwargs)
            if out is not NotImplemented:
                return out
        return self._call(args, kwargs)

    def _call(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """Every call the hot path does not take: other signatures, conversions, structures."""
        if self._hot_forms:
            self._record_form_hits()
        if trace_context.current() is not None:
            return self._traced_call(args, kwargs)
        if config.functions_run_eagerly():
            with variables.running_eagerly(self.__name__):
                return self.python_function(*args, **kwargs)
        key = None if kwargs else _array_key(args)
        entry = self._entries.get(key) if key is not None else None
        if entry is not None:
            out = entry(*args)
            if out is not NotImplemented:
                self._last_entry = entry
                return out
        structured = _structured_key(args, kwargs) if key is None else None
        if structured is not None:
            found = self._structured.get(structured[0])
            if found is not None:
                out = found[0](*structured[1])
                if out is not NotImplemented:
                    self._monitor.seen(found[1])  # a cache hit, as the full lookup would record
                    if found[2] is not None:
                        self._use_form(found[2], found[1], kwargs)
                    return out
        shaped = structured if key is None else _structured_key(args, kwargs)  # (writing functions' key)
        if shaped is not None and self._writing:
            writing = self._writing.get((shaped[0], *(leaf.dtype for leaf in shaped[1])))
            if writing is not None and not shared_arguments(shaped[1], writing.written_arguments):
                self._monitor.seen(writing.signature.key)  # a cache hit, as the full lookup would record
                return writing(*args)
        if "dask" in sys.modules:  # Dask arrays in, a Dask array out (kiln.frontend.dask_arrays)
            from kiln.frontend import dask_arrays

            if dask_arrays.holds_dask_array(args, kwargs):
                return dask_arrays.call(self, args, kwargs)
        with progress.compiling(self.__name__, self._stages), gc_pause.paused():  # progress shown when a first call takes long
            concrete = self._concrete_for(args, kwargs)
            out = concrete(*args, **kwargs)
        if shaped is not None:
            self._keep_writing(shaped, concrete, kwargs)
        if structured is not None:
            self._keep_structured_entry(structured, concrete, args, kwargs)
        elif key is not None:
            entry = concrete.native_entry()
            if entry is not None:
                if len(self._entries) >= _MAX_ENTRIES:  # e.g. many shapes of a dynamic input_signature
                    self._entries.clear()
                self._entries[key] = self._last_entry = _exact_zero_d(_taking_scalars(entry, key, concrete), key,
                                                                      concrete, args)
        if Function.__call__ is _PYTHON_CALL and (self._last_entry is not None or self._last_keywords is not None):
            _go_native(self.target)
        return out

    def _traced_call(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """A call from inside another function's trace: a call of this function's callee for the
        call's signature, traced once and shared by every such call of the outermost trace
        (kiln.frontend.calls; converted by AutoGraph as its own setting says), or its body traced
        in place where the callee cannot stand alone. Recursion deeper than
        :data:`_MAX_TRACED_DEPTH` is refused at the call's line (recursion on traced values would
        never end while tracing)."""
        from kiln.frontend.concrete import _autograph

        depth = _traced_depth.get()
        active = depth.get(self, 0)
        if active >= _MAX_TRACED_DEPTH:
            raise _TracedRecursionError(self._too_deep(f"more than {_MAX_TRACED_DEPTH} levels"))
        token = _traced_depth.set({**depth, self: active + 1})
        try:
            body = _autograph(self.python_function) if self.autograph else self.python_function
            name = _symbol_name(self.python_function)
            return calls.traced_call(self, name, body, args, kwargs)
        except RecursionError as error:
            # Python's own limit can come first (each traced level takes many frames): named at
            # the outermost recursive call, where the stack has room again
            if isinstance(error, _TracedRecursionError):
                raise
            if active:
                error.kiln_recursive = self  # type: ignore[attr-defined]
                raise
            if getattr(error, "kiln_recursive", None) is not self:
                raise
            raise _TracedRecursionError(self._too_deep("until Python's recursion limit")) from None
        finally:
            _traced_depth.reset(token)

    def _too_deep(self, how: str) -> str:
        return (
            f"{trace_context.here()}: kiln.function {self.__name__} calls itself {how} deep while tracing: "
            "recursion whose depth depends on traced values cannot be compiled; write it as a loop, "
            "or make the depth a Python value"
        )

    def _keep_structured_entry(self, structured: tuple[tuple[Any, ...], list[Any]], concrete: ConcreteFunction,
                               args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        """Remember the leaf entry of a call with containers or keywords under its structured key,
        with the entry of the call's form, which the next calls of that form take first."""
        leaf_key = _array_key(tuple(structured[1]))
        entry = concrete.leaf_entry()
        if entry is None or leaf_key is None:
            return
        if len(self._structured) >= _MAX_ENTRIES:
            self._structured.clear()
        # (an input_signature converts Python values to its tensors: the call's form is not the trace's)
        form = form_of(args, kwargs) if self.input_signature is None else None
        form_entry = concrete.form_entry(form) if form is not None else None
        key = concrete.signature.key
        self._structured[structured[0]] = (_taking_scalars(entry, leaf_key, concrete), key, form_entry)
        if form_entry is not None:
            self._use_form(form_entry, key, kwargs)

    def _keep_writing(self, structured: tuple[tuple[Any, ...], list[Any]], concrete: ConcreteFunction,
                      kwargs: dict[str, Any]) -> None:
        """Remember a trace whose only reason to check each call is that it writes array arguments
        (not their layouts, containers or rebound scalars; arguments not shared; no conversion by an
        input_signature), so that the next call of its structured key and dtypes goes straight to it:
        NPBench's in-place kernels, called with Python ints and arrays, spent 0.1 ms a call (0.25 ms
        with cold caches) finding their trace again."""
        traced = concrete._traced
        if (kwargs or self.input_signature is not None or not traced.written_arguments or traced.scalar_rebound
                or traced.layout_arguments or traced.container_effects or traced.written_containers
                or concrete.signature.aliases or concrete.signature.layouts or self._refused_contiguous
                or not all(isinstance(leaf, np.ndarray | np.generic) for leaf in structured[1])):
            return
        if len(self._writing) >= _MAX_ENTRIES:
            self._writing.clear()
        self._writing[(structured[0], *(leaf.dtype for leaf in structured[1]))] = concrete

    def _use_form(self, form_entry: tuple[Callable[..., Any], Any], key: Any, kwargs: dict[str, Any]) -> None:
        """Make a form entry (with its native form) the hot path of the calls like the one that
        found it; ``key``, its trace's signature key."""
        call, form = form_entry
        if kwargs:
            self._last_keywords = call
        else:
            self._last_entry = call
        self._hot_forms[bool(kwargs)] = [form, key, form.calls]

    def _record_form_hits(self) -> None:
        """Record the calls the hot path's forms ran since the last call that missed it as a cache
        hit of their trace, as a call through the Python path records its own: the retracing
        warning needs a hit between traces (one stands for many: it counts traces in a row)."""
        for hot in self._hot_forms.values():
            form, key, recorded = hot
            if form.calls != recorded:
                self._monitor.seen(key)
                hot[2] = form.calls

    def _concrete_for(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> ConcreteFunction:
        sig = self._signature(args, kwargs)
        if sig.key in self._refused_contiguous:
            sig = _with_layouts(sig, args, kwargs)
        concrete = self._concrete.get(sig.key)
        if concrete is None:
            try:
                concrete = self._trace(sig)
            except REFUSALS:
                # traced as if every argument were C-contiguous, it was refused; the refusal may
                # hold only there (a ravel is a view of a contiguous argument and a copy of a
                # strided one): trace again with the call's layouts before giving up
                strided = _with_layouts(sig, args, kwargs)
                if strided is sig:
                    raise
                self._refused_contiguous.add(sig.key)
                sig = strided
                found = self._concrete.get(sig.key)
                concrete = found if found is not None else self._trace(sig)
        if concrete.written_arguments:  # arguments that are one array must be one array in the trace
            aliases = shared_arguments(tensor_leaves(args, kwargs), concrete.written_arguments)
            if aliases:
                sig = replace(sig, key=(*sig.key, ("aliases", aliases)), aliases=aliases)
                found = self._concrete.get(sig.key)
                concrete = found if found is not None else self._trace(sig)
        if concrete.layout_arguments and not sig.layouts:  # a trace that depends on arguments' layouts: one per layout
            layouts = argument_layouts(tensor_leaves(args, kwargs), concrete.layout_arguments)
            if layouts:
                sig = replace(sig, key=(*sig.key, ("layouts", layouts)), layouts=layouts)
                found = self._concrete.get(sig.key)
                concrete = found if found is not None else self._trace(sig)
        return concrete

    def _call_method(self, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """A call through a bound method that its fast path did not take; leaves that instance's
        native entry (over the array arguments) for the next call when the call allows one."""
        full = (instance, *args)
        if (kwargs or config.functions_run_eagerly() or trace_context.current() is not None
                or (key := _array_key(args)) is None):  # (inside a trace: traced into it by _call)
            return self._call(full, kwargs)
        with progress.compiling(self.__name__, self._stages), gc_pause.paused():
            concrete = self._concrete_for(full, kwargs)
            out = concrete(*full)
        entry = concrete.native_entry(bound_instance=True)
        if entry is not None:
            try:
                ref = weakref.ref(instance, lambda _, i=id(instance): self._method_entries.pop(i, None))
            except TypeError:  # not weakly referable: no fast path to keep for it
                return out
            self._method_entries[id(instance)] = (ref, _exact_zero_d(_taking_scalars(entry, key, concrete), key, None,
                                                                     args))
        return out

    def get_concrete_function(self, *args: Any, **kwargs: Any) -> ConcreteFunction:
        """The compiled function for these arguments (arrays or TensorSpecs), tracing if needed."""
        if not args and not kwargs and self.input_signature is not None:
            args = self.input_signature
        sig = self._signature(args, kwargs)
        concrete = self._concrete.get(sig.key)
        return concrete if concrete is not None else self._trace(sig)

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        """Decorated methods bind ``self`` like plain methods; the cache keys ``self`` by identity
        and holds it weakly, so each instance has its own traces (and its own variables)."""
        if instance is None:
            return self
        return BoundFunction(self, instance)

    # ------------------------------------------------------------------ the trace cache

    #: at most this many traced signatures are kept (least recently used go first); set per
    #: function with ``f.cache_limit = n`` before its first call
    cache_limit: int = 64

    def cache_size(self) -> int:
        """How many traced signatures the cache holds now."""
        return len(self._concrete)

    def concrete_functions(self) -> list[ConcreteFunction]:
        """The cached traces, least recently used first."""
        return list(self._concrete)

    def clear_cache(self) -> None:
        """Drop every trace (the next call traces again; the compiled code stays in the on-disk cache)."""
        self._concrete.clear()
        self._forget_entries()

    @property
    def retrace_reasons(self) -> list[str]:
        """Why each recent trace happened, oldest first ("first call", "argument `x`: shape (2,) → (3,)")."""
        return list(self._monitor.reasons)

    # ------------------------------------------------------------------ internals

    def _signature(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> CallSignature:
        if self.input_signature is None:
            return signature_of(args, kwargs, self._monitor.arg_name)
        if kwargs or len(args) != len(self.input_signature):
            raise TypeError(
                f"{self.__name__}: input_signature has {len(self.input_signature)} arguments, "
                f"called with {len(args)} positional and {len(kwargs)} keyword arguments"
            )
        names = self._monitor.arg_names(len(args))
        for i, (spec, value) in enumerate(zip(self.input_signature, args)):
            why = spec.mismatch(value)
            if why is not None:
                raise TypeError(
                    f"{self.__name__}: argument {i} (`{names[i]}`) does not match input_signature[{i}] = {spec}: {why}"
                )
        return signature_of(list(self.input_signature), {}, self._monitor.arg_name)

    def _trace(self, sig: CallSignature) -> ConcreteFunction:
        """Trace and cache ``sig`` (the slow path of a call), recording why it traced."""
        if self.tracing_count == 0:
            retracing.creations.traced_first(self.python_function)
        self._monitor.traced(sig.key)
        self.tracing_count += 1
        concrete = ConcreteFunction.trace(
            self.python_function,
            sig,
            name=_symbol_name(self.python_function),
            target=self.target,
            autograph=self.autograph,
            isa=self.isa,
            rules=self.rules,
            passes=self.passes,
        )
        concrete.signature = sig.detached()  # the cache must not keep the call's Python values alive
        self._concrete.limit = self.cache_limit
        if self._concrete.put(sig.key, concrete):
            self._forget_entries()
        return concrete

    def _forget_entries(self) -> None:
        """Drop the call fast path's entries, so that dropped traces are really freed."""
        self._entries.clear()
        self._structured.clear()
        self._method_entries.clear()
        self._last_entry = self._last_keywords = None
        self._hot_forms.clear()

    def __repr__(self) -> str:
        return f"<kiln.Function {self.__name__} traces={self.tracing_count}>"


#: the Python steps of a call, Function.__call__ until a backend gives its native one
_PYTHON_CALL = Function.__call__

#: what turns the hot path off (Function.__call__'s conditions, for the native one)
_HOT_PATH_SWITCHES = ((vars(config), "_run_eagerly"), (vars(trace_context), "in_progress"))


def _go_native(target: str) -> None:
    """Make ``Function.__call__`` the backend's native call (Backend.function_call) once it has one:
    the same steps without a Python frame (a 1-element add: 0.35 -> 0.21 us). One for every function:
    it only calls what each keeps (``_last_entry``, ``_last_keywords``, ``_call``)."""
    make = get_backend(target).function_call
    native = make(_HOT_PATH_SWITCHES) if make is not None else None
    if native is not None:
        Function.__call__ = native  # type: ignore[method-assign]


class BoundFunction:
    """A ``kiln.Function`` bound to an instance (``model.call``), as a plain method is: calls pass
    the instance first. It has its own fast path: the instance's native entry over the array
    arguments, so a decorated method costs what a decorated function does per call."""

    __slots__ = ("__self__", "__func__")

    def __init__(self, function: Function, instance: Any) -> None:
        self.__func__ = function
        self.__self__ = instance

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        function, instance = self.__func__, self.__self__
        cached = function._method_entries.get(id(instance))
        if (cached is not None and not kwargs and cached[0]() is instance and not config.functions_run_eagerly()
                and not trace_context.in_progress):  # (as Function.__call__'s hot path)
            out = cached[1](*args)
            if out is not NotImplemented:
                return out
        return function._call_method(instance, args, kwargs)

    def get_concrete_function(self, *args: Any, **kwargs: Any) -> ConcreteFunction:
        """The compiled function for these arguments, this instance first."""
        return self.__func__.get_concrete_function(self.__self__, *args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.__func__, name)  # python_function, tracing_count, __name__, ...

    @property
    def __signature__(self) -> inspect.Signature:
        """The method's signature without ``self``, as for a plain bound method."""
        sig = inspect.signature(self.__func__.python_function)
        return sig.replace(parameters=list(sig.parameters.values())[1:])

    @property  # type: ignore[override]
    def __doc__(self) -> str | None:
        return self.__func__.python_function.__doc__

    def __repr__(self) -> str:
        return f"<bound {self.__func__!r} of {self.__self__!r}>"


def function(
    func: Callable[..., Any] | None = None,
    *,
    input_signature: Sequence[TensorSpec] | None = None,
    autograph: bool = True,
    target: str = "c",
    isa: str | None = None,
    rules: RuleFiles | None = None,
    passes: PassSpec | None = None,
) -> Any:
    """Compile ``func`` on its first call per signature (usable as ``@kiln.function`` or
    ``@kiln.function(input_signature=..., target=...)``). ``target`` is ``"c"`` or ``"cuda"``;
    ``isa`` forces the C target's SIMD instruction set (``avx512``, ``avx2``, ``neon``,
    ``scalar``; default: ``$KILN_ISA``, else the host's). ``rules`` names rule files (a path,
    ``kiln:NAME``, or a list; docs/rules.md) whose rules rewrite the traced graph before it is
    lowered; they are read when the function is decorated, and compiled code is cached per
    rule text. ``passes`` adds the user's xDSL passes to the pipeline: a pipeline spec
    (``"fold-relu,cse"``) or pass instances, run on the traced graph, or a mapping from a stage
    name (``graph``, or one of the target's: ``tensor``, ``buffer``, ``loops`` for C) to the passes
    run on that stage's IR before it is lowered further (docs/writing-passes.md); compiled code
    is cached per pass, options and the code that defines the pass."""

    def wrap(f: Callable[..., Any]) -> Function:
        return Function(f, input_signature=input_signature, autograph=autograph, target=target, isa=isa, rules=rules,
                        passes=passes)

    return wrap if func is None else wrap(func)
