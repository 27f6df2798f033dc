"""Translate a module of upstream func/arith/math/scf/memref ops into one C11 translation unit.

Each ``func.func`` becomes one C function (see docs/abi.md for the calling
convention). Scalars become C locals named after their SSA name hints;
constants are inlined as literals; memrefs are a pointer to the first element
plus per-dimension size and stride expressions (:class:`MemrefDesc`), folded to
integers wherever the type is static.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import ComplexType, IntegerAttr, MemRefType, ModuleOp
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.traits import IsTerminator

from kiln.backends.c import control_ops, kernel_ops, linalg_ops, memref_ops, scalar_ops  # noqa: F401  (register handlers)
from kiln.backends.c import vector_ops  # after scalar_ops: wraps its arith/math handlers for vectors
from kiln.backends.c import print_ops  # noqa: F401  (registers krt.print)
from kiln.backends.c import check_ops  # noqa: F401  (registers krt.check)
from kiln.backends.c import algorithm_ops  # noqa: F401  (registers the kernel dialect's algorithms)
from kiln.backends.c import parallel_ops  # noqa: F401  (after control_ops: wraps its scf.for handler)
from kiln.backends.c.c_types import c_type, element_c_type
from kiln.backends.c.dispatch import HANDLERS, Handler
from kiln.backends.c.errors import CEmitError, op_error
from kiln.backends.c.helpers import HELPERS
from kiln.backends.c.abi import check_abi_memref, return_type, signature_params  # noqa: F401  (CUDA imports them here)
from kiln.backends.c.abi import c_symbol
from kiln.backends.c.index_expr import IndexExpr, mul
from kiln.backends.c.memref_desc import MemrefDesc
from kiln.backends.c import prelude
from kiln.backends.c.names import C_KEYWORDS as _C_KEYWORDS, is_reserved_c_name  # noqa: F401  (re-exported)
from kiln.dialects.contracts import C_SYMBOL_ATTR, USER_PREFIX
from kiln.backends.c.parts import END, MAIN, guard
from kiln.dialects.contracts import PART_ATTR

EXPORT = '__attribute__((visibility("default")))'

_IDENT = re.compile(r"[^A-Za-z0-9_]")


#: for functions with complex values: GCC's SLP vectorizer recognizes complex arithmetic
#: on (real, imaginary) lane pairs and emits fused multiply-adds (vfmaddsub) even under
#: -ffp-contract=off, which would round NumPy's written-out formulas differently
NO_COMPLEX_PATTERNS = '__attribute__((optimize("no-tree-slp-vectorize"))) '


def function_attributes(fn: func.FuncOp) -> str:
    """The attributes a function's C definition needs for its complex values (or none)."""
    for op in fn.walk():
        if any(isinstance(r.type, ComplexType) for r in op.results):
            return NO_COMPLEX_PATTERNS
    return ""


def sanitize(hint: str | None, default: str) -> str:
    """A C identifier from an SSA name hint."""
    name = _IDENT.sub("_", hint) if hint else default
    if not name or name[0].isdigit():
        name = f"v{name}"
    return name


class ModuleEmitter:
    """Module-wide state: reserved global names and the helpers the functions used."""

    def __init__(self, module: ModuleOp, isa: str | None = None) -> None:
        self.module = module
        self.simd = vector_ops.Simd(module, isa)
        self.funcs: dict[str, func.FuncOp] = {}
        #: cut into parts by kiln-outline-parts: each compiles as a translation unit of its own
        self.split = any(isinstance(op, func.FuncOp) and _part(op) is not None for op in module.ops)
        self.globals: dict[str, str] = {}
        self.helpers: set[str] = set()
        self.reserved: set[str] = set(_C_KEYWORDS) | scalar_ops.LIBM_NAMES | set(HELPERS)
        for op in module.ops:
            if isinstance(op, func.FuncOp):
                name, symbol = op.sym_name.data, c_symbol(op)
                if sanitize(symbol, "f") != symbol or symbol in _C_KEYWORDS:
                    raise op_error(op, f"function name {symbol} of @{name} is not a valid C identifier")
                if symbol == name and is_reserved_c_name(name):
                    raise op_error(op, f"function name @{name} clashes with a C library or kiln helper name")
                if symbol != name and not symbol.startswith(USER_PREFIX):
                    raise op_error(op, f"{C_SYMBOL_ATTR} of @{name} must start with {USER_PREFIX}")
                if symbol in self.reserved:
                    raise op_error(op, f"the C name {symbol} of @{name} is another function's")
                self.funcs[name] = op
                self.reserved.add(symbol)
        for op in module.ops:
            if isinstance(op, memref.GlobalOp):
                cname = self._unique_global(sanitize(op.sym_name.data, "g"))
                self.globals[op.sym_name.data] = cname
                self.reserved.add(cname)

    def _unique_global(self, name: str) -> str:
        candidate, n = name, 0
        while candidate in self.reserved:
            n += 1
            candidate = f"{name}_{n}"
        return candidate

    def emit(self) -> str:
        """The whole translation unit: includes, helpers, globals, prototypes, functions."""
        globals_: list[str] = []
        protos: list[str] = []
        bodies: list[str] = []
        for op in self.module.ops:
            if isinstance(op, func.FuncOp):
                protos.append(self._prototype(op))
                if op.body.blocks:
                    bodies.append(self._in_part(op, _emit_function(self, op)))
            elif isinstance(op, memref.GlobalOp):
                globals_.append(memref_ops.emit_global(self, op))
            else:
                raise op_error(op, "unsupported top-level op in the C backend")
        parts = [*prelude.lines(self.simd.includes()), ""]  # prelude.of(source) finds it by the blank line
        parts += [HELPERS[name] for name in sorted(self.helpers)]
        parts += self.simd.definitions()
        if globals_:
            parts += globals_ + [""]
        parts += protos + [""] + bodies
        return "\n".join(parts)

    def _in_part(self, fn: func.FuncOp, text: str) -> str:
        """``fn``'s definition, guarded to its translation unit when the module is cut into parts
        (backends/c/parts.py): an outlined function in its group's, a public one in the main one;
        a static one is in every unit that may call it."""
        if not self.split or (_is_private(fn) and _part(fn) is None):
            return text
        part = _part(fn)
        return "\n".join([guard(MAIN if part is None else str(part)), text, END, ""])

    def _prototype(self, fn: func.FuncOp) -> str:
        if not fn.body.blocks:
            names = [f"a{i}" for i in range(len(fn.function_type.inputs.data))]
            return f"extern {return_type(fn)} {c_symbol(fn)}({', '.join(signature_params(fn, names))});"
        sig = f"{return_type(fn)} {c_symbol(fn)}({', '.join(signature_params(fn, _arg_names(fn)))});"
        if _part(fn) is not None:
            return sig  # hidden (-fvisibility=hidden), but linked across the units of the parts
        return f"static {sig}" if _is_private(fn) else f"{EXPORT} {sig}"


def _part(fn: func.FuncOp) -> int | None:
    """The group of an outlined function (kiln-outline-parts), else None."""
    attr = fn.attributes.get(PART_ATTR)
    return attr.value.data if isinstance(attr, IntegerAttr) else None


def _is_private(fn: func.FuncOp) -> bool:
    return fn.sym_visibility is not None and fn.sym_visibility.data == "private"


def _arg_names(fn: func.FuncOp) -> list[str]:
    """Parameter names from the entry block's name hints, uniqued."""
    used: set[str] = set()
    names = []
    for i, arg in enumerate(fn.body.blocks[0].args):
        base = sanitize(arg.name_hint, f"arg{i}")
        name, n = base, 0
        while name in used or name in _C_KEYWORDS or name in scalar_ops.LIBM_NAMES:
            n += 1
            name = f"{base}_{n}"
        used.add(name)
        names.append(name)
    return names


class FunctionEmitter:
    """Emits one func.func: owns its locals, indentation and SSA value → C mapping."""

    #: float comparisons as gcc's quiet builtins (``__builtin_isless``), which let gcc vectorize
    #: selects on them (scalar_ops._CMPF_QUIET); CUDA device code has none
    quiet_compares: bool = True

    def __init__(self, module: ModuleEmitter, fn: func.FuncOp) -> None:
        self.module = module
        self.fn = fn
        self.lines: list[str] = []
        self.depth = 1
        self.values: dict[SSAValue, str] = {}
        self.memrefs: dict[SSAValue, MemrefDesc] = {}
        self.used: set[str] = set(module.reserved) | set(module.globals.values())
        #: the next suffix to try per base name, so that a fresh name costs O(1), not O(uses)
        self.next_suffix: dict[str, int] = {}
        #: the C flag that says whether the stores marked kiln.stream in the loop being emitted
        #: stream (backends/c/parallel_ops.py); None outside such a loop: they are normal stores
        self.stream_flag: str | None = None

    # -- names and lines -------------------------------------------------------------
    def fresh(self, hint: str | None, default: str = "v") -> str:
        """A new local name derived from an SSA name hint, unique in this function."""
        base = sanitize(hint, default)
        n = self.next_suffix.get(base, 0)
        name = f"{base}_{n}" if n else base
        while name in self.used:
            n += 1
            name = f"{base}_{n}"
        self.next_suffix[base] = n + 1
        self.used.add(name)
        return name

    def line(self, text: str) -> None:
        """Append one line at the current indentation."""
        self.lines.append("  " * self.depth + text)

    def open(self, text: str) -> None:
        """Append a line ending in '{' and indent."""
        self.line(text)
        self.depth += 1

    def close(self, text: str = "}") -> None:
        """Dedent and append the closing line."""
        self.depth -= 1
        self.line(text)

    def use_helper(self, name: str) -> str:
        """Record that a static inline helper is needed; returns its name."""
        self.module.helpers.add(name)
        return name

    # -- values ----------------------------------------------------------------------
    def expr(self, value: SSAValue) -> str:
        """The C expression of a scalar SSA value."""
        try:
            return self.values[value]
        except KeyError:
            raise CEmitError(f"C backend: no C value for {value} (a memref used as a scalar?)") from None

    def index(self, value: SSAValue) -> IndexExpr:
        """An index operand: a Python int when it is an arith.constant, else its C name."""
        owner = value.owner
        if isinstance(owner, arith.ConstantOp):
            return owner.value.value.data  # type: ignore[union-attr]
        return self.expr(value)

    def memref(self, value: SSAValue) -> MemrefDesc:
        """The C descriptor of a memref SSA value."""
        try:
            return self.memrefs[value]
        except KeyError:
            raise CEmitError(f"C backend: no C memref for {value}") from None

    def bind(self, value: SSAValue, text: str) -> None:
        """Map an SSA value to a C expression without declaring anything (constants)."""
        self.values[value] = text

    def define(self, value: SSAValue, text: str) -> str:
        """Declare a local initialised with a C expression and map the value to it."""
        name = self.fresh(value.name_hint)
        self.line(f"{c_type(value.type)} {name} = {text};")
        self.values[value] = name
        return name

    def bind_memref(self, value: SSAValue, desc: MemrefDesc) -> None:
        """Map a memref SSA value to its descriptor."""
        self.memrefs[value] = desc

    # -- structure -------------------------------------------------------------------
    def emit_ops(self, block: Block) -> Operation | None:
        """Emit every op of a block but its terminator, which is returned to the caller."""
        terminator = block.last_op
        if terminator is not None and not terminator.has_trait(IsTerminator):
            terminator = None
        for op in block.ops:
            if op is terminator:
                break
            self.emit_op(op)
        return terminator

    def handler_for(self, op: Operation) -> Handler | None:
        """The emit rule for ``op``; emitters of other targets (CUDA host and kernel code)
        override a few ops and fall back to this table. The complex dialect's rules are
        registered by its first op (importing xDSL's complex dialect: ~5 ms of every first call)."""
        handler = HANDLERS.get(type(op))
        if handler is None and op.name.startswith("complex."):
            from kiln.backends.c import complex_ops  # noqa: F401  (registers them)

            handler = HANDLERS.get(type(op))
        return handler

    def emit_op(self, op: Operation) -> None:
        """Emit one op through the handler table; unknown ops are an error."""
        handler = self.handler_for(op)
        if handler is None:
            raise op_error(op, "unsupported op in the C backend")
        try:
            handler(self, op)
        except CEmitError as e:
            if str(e).startswith("C backend:"):
                raise
            raise op_error(op, str(e)) from None
        except Exception as e:  # a form of the op its rule does not cover: name the op, never crash
            raise op_error(op, f"this form of the op is not supported ({type(e).__name__}: {e})") from e

    def row_major(self, ptr: str, ty: MemRefType, sizes: Sequence[IndexExpr]) -> MemrefDesc:
        """Descriptor of a contiguous row-major memref; composite runtime strides get a local."""
        strides: list[IndexExpr] = []
        stride: IndexExpr = 1
        for size in reversed(sizes):
            strides.append(stride)
            stride = mul(stride, size)
        strides.reverse()
        named: list[IndexExpr] = []
        for i, s in enumerate(strides):
            if isinstance(s, str) and "*" in s:
                local = self.fresh(f"{ptr}_s{i}")
                self.line(f"const int64_t {local} = {s};")
                s = local
            named.append(s)
        return MemrefDesc(ptr, element_c_type(ty), tuple(sizes), tuple(named))

    def emit(self) -> str:
        """The C definition of the function."""
        fn = self.fn
        if len(fn.body.blocks) > 1:
            raise op_error(fn, f"@{fn.sym_name.data} has several blocks (cf branches): use scf control flow")
        block = fn.body.blocks[0]
        names = _arg_names(fn)
        self.used |= set(names)
        for arg, name in zip(block.args, names, strict=True):
            if isinstance(arg.type, MemRefType):
                sizes = [d if d >= 0 else f"{name}_d{i}" for i, d in enumerate(arg.type.get_shape())]
                self.used |= {s for s in sizes if isinstance(s, str)}
                self.bind_memref(arg, self.row_major(name, arg.type, sizes))
            else:
                self.bind(arg, name)
        terminator = self.emit_ops(block)
        if not isinstance(terminator, func.ReturnOp):
            raise op_error(fn, "function body must end with func.return")
        values = list(terminator.arguments)
        for i, value in enumerate(values[1:], start=1):
            self.line(f"*out{i} = {self.expr(value)};")
        if values:
            self.line(f"return {self.expr(values[0])};")
        storage = "" if _part(fn) is not None else "static " if _is_private(fn) else f"{EXPORT}\n"
        params = ", ".join(signature_params(fn, names))
        header = f"{storage}{function_attributes(fn)}{return_type(fn)} {c_symbol(fn)}({params}) {{"
        return "\n".join([header, *self.lines, "}", ""])


def _emit_function(module: ModuleEmitter, fn: func.FuncOp) -> str:
    """The C definition of ``fn``; a failure outside its ops' rules is reported on the function."""
    try:
        return FunctionEmitter(module, fn).emit()
    except CEmitError:
        raise
    except Exception as e:
        raise op_error(fn, f"this function is not supported ({type(e).__name__}: {e})") from e


def emit_c(module: ModuleOp, isa: str | None = None) -> str:
    """C11 source for a module of func/arith/math/scf/memref/vector ops; raises CEmitError on others.

    ``isa`` picks the SIMD table for vector ops (default: ``$KILN_ISA``, else the host's)."""
    return ModuleEmitter(module, isa).emit()

