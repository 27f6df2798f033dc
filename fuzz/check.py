"""Run one generated program eagerly on NumPy and compiled by kiln; classify the difference.

Classes (:data:`CLASSES`):

* ``match``: same result structure, dtypes, shapes and values (floats within a
  tolerance), and every argument array the same after the call;
* ``mismatch``: any difference there (a silent wrong answer: always kiln's bug,
  since the program is well defined);
* ``refused``: kiln raised an error of a user-facing type (``NotImplementedError``,
  ``TypeError``, ``ValueError``...) whose message names the program's file and a
  line of it, as kiln promises for what it does not support;
* ``crash``: anything else: another exception, a refusal without ``file:line``,
  a timeout or a signal (the last two are seen by :mod:`kiln.fuzz.pool`);
* ``invalid``: the program is not well defined after all (NumPy raised or
  warned, a value left the generator's bounds, or the result depends on
  ``np.empty``'s contents). Campaigns replace such programs; they are not kiln's.

The eager run enforces the bounds the generator relies on (see
:mod:`kiln.fuzz.model`): floating-point errors raise, warnings are errors, and a
line tracer checks every local of the program's functions at every line.
"""

from __future__ import annotations

import ast
import importlib.util
import re
import sys
import traceback
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from types import FrameType, ModuleType
from typing import Any

import numpy as np

from kiln.fuzz.model import FLOAT_LIMIT, INT_LIMIT

CLASSES = ("match", "mismatch", "refused", "crash", "invalid")

#: exception types kiln uses to refuse a construct it does not support
REFUSAL_TYPES = (NotImplementedError, TypeError, ValueError, IndexError, NameError, OverflowError)

#: relative tolerance per float dtype; the absolute one scales with the largest expected value
RTOL = {"float32": 2e-4, "float64": 1e-9}

#: functions NumPy computes with SIMD code of its own for float32 (not libm's, so not kiln's):
#: a float32 result of one differs by an ulp or so, and keeps that error when cast to float64
#: (NumPy 2.4 on AVX-512: np.arctan2(1, 1) is 0.7853981 in float32, atan2f's 0.7853982; np.cbrt(3.5)
#: 1.5182946, cbrtf's 1.5182945; np.sqrt and np.hypot agree with libm). The power ``**`` too:
#: NumPy's float32 ``x ** 3`` errs by up to 0.96 ulp, kiln's (glibc's powf) by 0.501 at most, and
#: of 2,000 inputs where the two differ kiln's is the nearer to the exact cube in 1,998
#: (kiln.fuzz 1140-8332: (2/3) ** 3 is 0.29629633 in kiln, correctly rounded, 0.2962963 in NumPy)
_FLOAT32_SIMD_FUNCTIONS = re.compile(r"np\.(sin|cos|tan|tanh|exp|log|log1p|arctan|arctan2|cbrt|expm1|power)\(|\*\*")


def tolerances(source: str) -> dict[str, float]:
    """The relative tolerance per result dtype for one program: float64 results are compared at
    float32's when a float32 value may have gone through one of NumPy's own float32 functions."""
    if "float32" in source and _FLOAT32_SIMD_FUNCTIONS.search(source):
        return {**RTOL, "float64": RTOL["float32"]}
    return RTOL


@dataclass
class Outcome:
    """What happened to one program (JSON-serializable for the worker protocol)."""

    status: str
    #: one line: the error, or where and how the results differ
    message: str = ""
    #: the class of failure, for grouping: normalized error text or mismatch aspect
    signature: str = ""
    #: more: a traceback, or the two values
    detail: str = ""
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class IllDefined(Exception):
    """The program left the rules that make it well defined: not kiln's problem."""


def load(path: str | Path, name: str | None = None) -> ModuleType:
    """Import a program file as a fresh module (AutoGraph reads its functions' source from it)."""
    path = Path(path).resolve()
    name = name or f"kiln_fuzz_{path.stem}_{abs(hash(str(path)))}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _copied(value: ast.expr) -> ast.expr:
    return ast.copy_location(ast.Call(func=ast.Name("_fuzz_copied", ast.Load()), args=[value], keywords=[]), value)


def _copied_index(index: ast.expr) -> ast.expr:
    """The index arrays of a subscript copied (slices stay as they are)."""
    if isinstance(index, ast.Slice):
        return index
    if isinstance(index, ast.Tuple):
        index.elts = [_copied_index(e) for e in index.elts]
        return index
    return _copied(index)


class _CopyValuesFirst(ast.NodeTransformer):
    """``x[k] = v`` becomes ``x[_fuzz_copied(k)] = _fuzz_copied(v)`` (``x[k] op= v`` the same
    index), ``np.copyto(d, v, where=m)`` copies ``v`` and ``m``, and a call with ``out=`` its
    positional operands: the value and the index or mask copied before the write. (NumPy reads a
    boolean mask that is a view of the array it writes while it writes: ``a[a[::-1]] = 0``
    depends on that order too; and NumPy 2.4's ``np.negative(a, out=a)`` of a strided float32 or
    int32 column reads the wrong elements, kiln.fuzz 1240-6016.)"""

    def visit_Assign(self, node: ast.Assign) -> ast.AST:
        self.generic_visit(node)
        targets = [t for t in node.targets if isinstance(t, ast.Subscript)]
        if targets:
            node.value = _copied(node.value)
        for t in targets:
            t.slice = _copied_index(t.slice)
        return node

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.target, ast.Subscript):
            node.target.slice = _copied_index(node.target.slice)
        return node

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        if any(kw.arg == "out" for kw in node.keywords):  # a ufunc's operands read before it writes out=
            node.args = [_copied(a) for a in node.args]
        if isinstance(node.func, ast.Attribute) and node.func.attr == "copyto" and len(node.args) >= 2:
            node.args[1] = _copied(node.args[1])
            for kw in node.keywords:
                if kw.arg == "where":
                    kw.value = _copied(kw.value)
        return node


def load_copying_values_first(path: str | Path) -> ModuleType:
    """The program with every ``x[k] = v``, ``np.copyto(x, v)`` and ``ufunc(v, out=x)`` copying an
    array ``v`` (and ``k``) first. NumPy copies an overlapping source first only in some cases
    (``a[1] = a[:, 4]`` it copies element by element, backwards, so the result depends on that
    order); a program whose result changes here depends on NumPy's copy order (or meets a NumPy
    bug with overlapping operands) and is ill defined."""
    path = Path(path).resolve()
    tree = ast.fix_missing_locations(_CopyValuesFirst().visit(ast.parse(path.read_text())))
    module = ModuleType(f"kiln_fuzz_copying_{path.stem}")
    module.__file__ = str(path)
    module.__dict__["_fuzz_copied"] = lambda v: v.copy() if isinstance(v, np.ndarray) else v
    exec(compile(tree, str(path), "exec"), module.__dict__)  # noqa: S102 (the program under test)
    return module


# ---------------------------------------------------------------------- the eager run


def _too_big(value: Any) -> str | None:
    if isinstance(value, (bool, np.bool_)):
        return None
    if isinstance(value, (int, float, np.generic, np.ndarray)):
        a = np.asarray(value)
        if a.size == 0 or a.dtype.kind not in "iuf":
            return None
        limit = INT_LIMIT if a.dtype.kind in "iu" else FLOAT_LIMIT
        if a.dtype.kind == "f" and not np.isfinite(a).all():
            return "is not finite"
        top = np.abs(a.astype(np.float64)).max()
        if top > limit:
            return f"reaches {top:g} (limit {limit:g})"
    elif isinstance(value, (tuple, list)):
        for v in value:
            why = _too_big(v)
            if why:
                return why
    return None


@contextmanager
def _bounds_checked(path: str) -> Iterator[None]:
    """Check every local of the program's frames at every line against the generator's limits."""

    def local(frame: FrameType, event: str, arg: Any) -> Any:
        if event in ("line", "return"):
            for name, value in frame.f_locals.items():
                why = _too_big(value)
                if why:
                    raise IllDefined(f"{name} {why} at line {frame.f_lineno}")
            if event == "return":
                why = _too_big(arg)
                if why:
                    raise IllDefined(f"the returned value {why}")
        return local

    def calls(frame: FrameType, event: str, arg: Any) -> Any:
        return local if frame.f_code.co_filename == path else None

    old = sys.gettrace()
    sys.settrace(calls)
    try:
        yield
    finally:
        sys.settrace(old)


@contextmanager
def _empty_filled_with(fill: int) -> Iterator[None]:
    """``np.empty`` returning arrays filled with ``fill``: a result that depends on it is ill defined."""
    real, real_like = np.empty, np.empty_like

    def empty(shape: Any, dtype: Any = float, order: str = "C", **kw: Any) -> np.ndarray:
        return np.full(shape, fill, dtype=dtype, order=order)

    def empty_like(a: Any, dtype: Any = None, order: str = "K", **kw: Any) -> np.ndarray:
        return np.full_like(a, fill, dtype=dtype, order=order)

    np.empty, np.empty_like = empty, empty_like  # type: ignore[assignment]
    try:
        yield
    finally:
        np.empty, np.empty_like = real, real_like  # type: ignore[assignment]


def central_differences(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any], nums: tuple[int, ...]) -> list[np.ndarray]:
    """The gradient of ``fn``'s scalar result with respect to the arguments ``nums`` names, by
    central differences with step 1: exact for the losses the generator writes (at most quadratic
    in the differentiated argument, on small exact values)."""
    grads = []
    for i in nums:
        a = np.asarray(args[i])
        if a.dtype.kind != "f":
            raise IllDefined(f"kiln.grad with respect to an argument of {a.dtype}")
        g = np.zeros(a.shape, a.dtype)
        for index in np.ndindex(a.shape):
            up, down = list(args), list(args)
            up[i], down[i] = a.copy(), a.copy()
            up[i][index] += 1
            down[i][index] -= 1
            g[index] = (fn(*up, **kwargs) - fn(*down, **kwargs)) / 2
        grads.append(g)
    return grads


@contextmanager
def _kiln_functions_eager() -> Iterator[None]:
    """The ``kiln.function`` helpers a program calls run as Python (``run_functions_eagerly``), and
    its ``kiln.grad`` functions by :func:`central_differences` (kiln compiles gradients even when
    functions run eagerly), so that the eager answer is NumPy's alone."""
    import inspect

    from kiln import config
    from kiln.frontend.gradients import _GradFunction

    def eager_gradient(self: _GradFunction, *args: Any, **kwargs: Any) -> Any:
        fn = inspect.unwrap(self)
        grads = central_differences(fn, args, kwargs, self._nums)
        gradient = grads[0] if len(grads) == 1 else tuple(grads)  # the generator writes an int argnums only
        return (fn(*args, **kwargs), gradient) if self.__name__.startswith("value_and_grad") else gradient

    was, call = config.functions_run_eagerly(), _GradFunction.__call__
    config.run_functions_eagerly(True)
    _GradFunction.__call__ = eager_gradient  # type: ignore[method-assign]
    try:
        yield
    finally:
        _GradFunction.__call__ = call  # type: ignore[method-assign]
        config.run_functions_eagerly(was)


def run_eager(module: ModuleType, path: str, fill: int = 0) -> tuple[Any, list[Any]]:
    """The program's NumPy answer and its arguments after the call; :class:`IllDefined` if it has none."""
    args = module.inputs()
    try:
        # (kiln first: imported while np.empty is patched, its NumPy dispatch would take the patch for np.empty)
        with _kiln_functions_eager(), np.errstate(all="raise"), warnings.catch_warnings(), _empty_filled_with(fill), \
                _bounds_checked(path):
            warnings.simplefilter("error")
            result = module.f(*args)
    except IllDefined:
        raise
    except Exception as e:
        raise IllDefined(f"NumPy raised {type(e).__name__}: {e}") from e
    return result, args


# ---------------------------------------------------------------------- comparing


def leaves(value: Any) -> tuple[str, list[Any]]:
    """The structure of a result (nesting of tuples/lists, ``None``) and its leaves."""
    if isinstance(value, (tuple, list)):
        parts = [leaves(v) for v in value]
        return "(" + ",".join(p[0] for p in parts) + ")", [x for p in parts for x in p[1]]
    if value is None:
        return "None", []
    return "*", [value]


def result_kind(value: Any) -> str:
    """What a result is, as NumPy returns it: an array, a NumPy scalar (``x.sum()``) or a Python
    number (``float(s)``); a 0-d array in place of a scalar is a mismatch."""
    if isinstance(value, np.ndarray):
        return "an array"
    if isinstance(value, np.generic):
        return f"a NumPy scalar ({type(value).__name__})"
    return f"a Python {type(value).__name__}"


def _describe(a: np.ndarray) -> str:
    text = np.array2string(a, threshold=20, max_line_width=200)
    return f"{a.dtype}{list(a.shape)} {text}"


def compare_values(want: Any, got: Any, where: str, rtols: dict[str, float] = RTOL) -> Outcome | None:
    """A mismatch outcome if ``got`` is not NumPy's ``want`` (dtype, shape, values), else None."""
    w, g = np.asarray(want), np.asarray(got)
    detail = f"NumPy:    {_describe(w)}\ncompiled: {_describe(g)}"
    if w.dtype != g.dtype:
        return Outcome("mismatch", f"{where}: dtype {g.dtype}, NumPy gives {w.dtype}", f"mismatch: dtype of {where.split(' ')[0]}", detail)
    if w.shape != g.shape:
        return Outcome("mismatch", f"{where}: shape {g.shape}, NumPy gives {w.shape}", f"mismatch: shape of {where.split(' ')[0]}", detail)
    if w.dtype.kind == "f":
        rtol = rtols.get(str(w.dtype), 1e-9)
        scale = max(1.0, float(np.abs(w).max(initial=0.0)))
        ok = np.isclose(g, w, rtol=rtol, atol=rtol * scale, equal_nan=True)
    else:
        ok = g == w
    if not np.all(ok):
        bad = np.argwhere(~np.asarray(ok))
        first = tuple(int(i) for i in bad[0]) if bad.size else ()
        return Outcome("mismatch", f"{where}: {len(bad) or 1} value(s) differ, first at {list(first)}: "
                       f"{g[first] if g.ndim else g!r} vs NumPy's {w[first] if w.ndim else w!r}",
                       f"mismatch: values of {where.split(' ')[0]}", detail)
    return None


def compare(want: Any, want_args: list[Any], got: Any, got_args: list[Any], rtols: dict[str, float] = RTOL) -> Outcome:
    ws, wl = leaves(want)
    gs, gl = leaves(got)
    if ws != gs:
        return Outcome("mismatch", f"result structure {gs}, NumPy gives {ws}", "mismatch: result structure",
                       f"NumPy: {want!r}\ncompiled: {got!r}")
    for k, (w, g) in enumerate(zip(wl, gl)):
        where = f"result {k}" if len(wl) > 1 else "result"
        bad = compare_values(w, g, where, rtols)
        if bad:
            return bad
        if result_kind(g) != result_kind(w):
            return Outcome("mismatch", f"{where}: {result_kind(g)}, NumPy gives {result_kind(w)}",
                           f"mismatch: kind of {where.split(' ')[0]}", f"NumPy: {w!r}\ncompiled: {g!r}")
    for k, (w, g) in enumerate(zip(want_args, got_args)):
        if isinstance(w, np.ndarray):
            bad = compare_values(w, g, f"argument {k} after the call", rtols)
            if bad:
                return bad
    return Outcome("match")


# ---------------------------------------------------------------------- errors


def _location_re(path: str) -> re.Pattern[str]:
    name = re.escape(Path(path).name)
    return re.compile(rf"(?:^|[\s\"'(/]){name}:(\d+)")


def normalize(message: str) -> str:
    """An error message without what varies between programs (paths, lines, names, numbers)."""
    text = message.strip().splitlines()[0] if message.strip() else ""
    text = re.sub(r"(/[^\s:'\"]+)+\.py(:\d+)*(:\d+)?", "FILE", text)
    text = re.sub(r"\b(?:v|w|i|r|k|t|acc|buf|helper)\d+\b", "NAME", text)
    text = re.sub(r"\b(bool|int32|int64|float32|float64)\b", "DTYPE", text)
    text = re.sub(r"'[a-z]'", "'NAME'", text)
    text = re.sub(r"0x[0-9a-f]+", "ADDR", text)
    text = re.sub(r"\d+", "N", text)
    return text[:200]


def classify_error(e: BaseException, path: str, lines: int) -> Outcome:
    message = f"{type(e).__name__}: {e}"
    notes = "\n".join(getattr(e, "__notes__", []))
    text = f"{e}\n{notes}"
    detail = "".join(traceback.format_exception(e))[-6000:]
    located = [int(m) for m in _location_re(path).findall(text)]
    if isinstance(e, REFUSAL_TYPES) and any(1 <= n <= lines for n in located):
        return Outcome("refused", message.splitlines()[0][:500], f"{type(e).__name__}: {normalize(str(e))}", detail)
    why = "" if located else " (no file:line)"
    if isinstance(e, REFUSAL_TYPES) and not located:
        sig = f"{type(e).__name__} without file:line: {normalize(str(e))}"
    else:
        sig = f"{type(e).__name__}: {normalize(str(e))}"
    return Outcome("crash", (message.splitlines()[0] if message.strip() else type(e).__name__)[:500] + why, sig, detail)


# ---------------------------------------------------------------------- one program


def check_file(
    path: str | Path,
    compiler: Callable[[Callable[..., Any]], Callable[..., Any]] | None = None,
    on_compile: Callable[[], None] | None = None,
) -> Outcome:
    """Classify one program file. ``compiler`` defaults to ``kiln.function``; ``on_compile`` is
    called when the eager runs are done (a watchdog then knows a hang is kiln's)."""
    import time

    start = time.perf_counter()
    path = str(Path(path).resolve())
    lines = len(Path(path).read_text().splitlines())
    try:
        module = load(path)
        mode = getattr(module, "FUZZ_MODE", "numpy")
        if mode != "numpy":
            return _check_mode(mode, module, path, lines, on_compile)
        want, want_args = run_eager(module, path, fill=0)
        again, again_args = run_eager(module, path, fill=7)
    except IllDefined as e:
        return Outcome("invalid", str(e)[:500], "invalid", "", time.perf_counter() - start)
    except Exception as e:  # the file does not load: the generator's bug
        return Outcome("invalid", f"{type(e).__name__}: {e}"[:500], "invalid", traceback.format_exc()[-3000:], time.perf_counter() - start)
    if compare(want, want_args, again, again_args).status != "match":
        return Outcome("invalid", "the result depends on np.empty's contents", "invalid", "", time.perf_counter() - start)
    try:
        copied, copied_args = run_eager(load_copying_values_first(path), path, fill=0)
    except IllDefined as e:
        return Outcome("invalid", str(e)[:500], "invalid", "", time.perf_counter() - start)
    if compare(want, want_args, copied, copied_args).status != "match":
        return Outcome("invalid", "the result depends on the order NumPy copies an overlapping view", "invalid", "",
                       time.perf_counter() - start)
    try:
        got, got_args = compiled_call(module, compiler, on_compile)
    except Exception as e:
        out = classify_error(e, path, lines)
    else:
        out = compare(want, want_args, got, got_args, tolerances(Path(path).read_text()))
    out.seconds = time.perf_counter() - start
    return out


def compiled_call(module: ModuleType, compiler: Callable[[Callable[..., Any]], Callable[..., Any]] | None,
                  on_compile: Callable[[], None] | None) -> tuple[Any, list[Any]]:
    """The program's ``f`` compiled (by ``kiln.function`` unless ``compiler`` is given) and called on
    fresh ``inputs()``: its result and the arguments after the call. ``on_compile`` is called first
    (a watchdog then knows a hang is kiln's); kiln's exceptions propagate."""
    if compiler is None:
        import kiln

        compiler = kiln.function
    args = module.inputs()
    if on_compile is not None:
        on_compile()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return compiler(module.f)(*args), args


#: the oracles of the other modes by a program's ``FUZZ_MODE``, registered by their modules
#: (kiln.fuzz.grad_check, kiln.fuzz.pyvalue_check: the package imports them), which use this one
MODE_ORACLES: dict[str, Callable[[ModuleType, str, int, Callable[[], None] | None], Outcome]] = {}


def _check_mode(mode: str, module: ModuleType, path: str, lines: int, on_compile: Callable[[], None] | None) -> Outcome:
    """A program of another mode (its module's ``FUZZ_MODE``): checked by that mode's oracle."""
    oracle = MODE_ORACLES.get(mode)
    if oracle is None:
        raise ValueError(f"unknown FUZZ_MODE {mode!r}")
    return oracle(module, path, lines, on_compile)


def main(path: str) -> None:
    """``python repro.py``: print the outcome of one program, with NumPy's and kiln's values.

    A file inside the kiln tree is checked from a temporary copy: AutoGraph converts
    only user files, and kiln's error locations name only user files.
    """
    import shutil
    import tempfile

    from kiln.frontend.trace_context import is_user_file

    real = str(Path(path).resolve())
    if not is_user_file(real) or "/kiln/fuzz/" in real:
        copy = Path(tempfile.mkdtemp(prefix="kiln-fuzz-check-")) / Path(path).name
        shutil.copy(real, copy)
        path = str(copy)
    out = check_file(path)
    print(f"{out.status}: {out.message}")
    if out.detail:
        print(out.detail)
