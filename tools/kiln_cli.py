"""``kiln``: compile a function from a Python file without glue code, or run the demo.

    kiln compile examples/lstm_cell.py lstm_cell --arg f32[10,10] ... --emit c
    kiln compile model.py f --arg float32[3,?] --emit graph --locations > f.mlir
    kiln demo
    kiln lit-config tests      # tests/lit.cfg.py, for a project's lit tests of its own passes
    kiln fuzz-opt --lit tests --load mine.py   # kiln-opt on mutations of those tests' inputs

``--arg`` takes ``DTYPE[DIMS]`` (``f32[3,3]``, ``float32[3,3]``, ``i64[?]``, ``f64[]``;
``?`` is a dynamic dim); ``--emit`` is a stage name (``graph``; ``tensor``, ``buffer``,
``loops`` of the C target; ``parallel``, ``gpu`` of the CUDA target) or ``c`` / ``cuda`` for
the emitted source. ``--locations`` keeps the user's file and line on every op of the graph
IR, which ``kiln-opt`` reads back. An error in the user's code shows the user's frames only;
Ctrl-C and a closed output (``| head``) end quietly.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import importlib
import re
import statistics
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import IO, Any

import numpy as np

from kiln.tools import _exits, opt_fuzz
from kiln.tools._load import load_file
from kiln.tools._user_code import describe, user_frames

_DTYPES = {
    "f32": "float32",
    "f64": "float64",
    "i32": "int32",
    "i64": "int64",
    "bool": "bool",
    "i1": "bool",
}
# the other dtypes, in the graph dialect's spelling (docs/ir-reference.md, "Element types")
_DTYPES.update({"i8": "int8", "i16": "int16", "f16": "float16", **{f"ui{w}": f"uint{w}" for w in (8, 16, 32, 64)}})

#: the target each --emit needs: a stage or the source of C or of CUDA (None: the function's own)
_EMIT_TARGET = {"graph": None, "tensor": None, "buffer": None, "loops": "c", "c": "c",
                "parallel": "cuda", "gpu": "cuda", "cuda": "cuda"}


def _dtype_name(name: str) -> str | None:
    """NumPy's name of the dtype ``name`` (a short name such as ``f32``, or NumPy's own, such as
    ``float32``); None for anything else (``float`` too: NumPy's alias is not a width)."""
    if name in _DTYPES:
        return _DTYPES[name]
    try:
        numpy_name = np.dtype(name).name
    except TypeError:
        return None
    return name if numpy_name == name else None


def parse_arg_spec(text: str) -> Any:
    """``f32[3,?]`` (or ``float32[3,?]``) -> ``kiln.TensorSpec((3, None), "float32")``."""
    import kiln

    m = re.fullmatch(r"\s*(\w+)\s*\[([^\]]*)\]\s*", text)
    dtype = _dtype_name(m.group(1)) if m else None
    if not m or dtype is None:
        raise ValueError(f"bad --arg {text!r}: expected DTYPE[DIMS], DTYPE a NumPy dtype name (float32, int64, "
                         f"bool, ...) or a short one ({', '.join(_DTYPES)}), e.g. f32[3,3]")
    dims = [d.strip() for d in m.group(2).split(",") if d.strip()]
    shape = [None if d == "?" else int(d) for d in dims]
    return kiln.TensorSpec(shape, dtype)


def _for_target(fn: Any, target: str | None, emit: str) -> Any:
    """``fn`` as a ``kiln.Function`` compiling for ``target`` (None: its own, else C)."""
    import kiln

    if not isinstance(fn, kiln.Function):
        return kiln.function(fn, target=target or "c")
    if target is None or fn.target == target:
        return fn
    if fn.rules is not None or fn.passes is not None:
        raise ValueError(f"--emit {emit} needs target {target!r}, and {fn.python_function.__name__} is decorated with "
                         f"rules or passes for target {fn.target!r}: decorate it with target={target!r}")
    return kiln.function(fn.python_function, input_signature=fn.input_signature, autograph=fn.autograph, target=target)


def cmd_compile(args: argparse.Namespace) -> int:
    import kiln

    module = load_file(Path(args.file))
    fn = getattr(module, args.function, None)
    if fn is None:
        raise ValueError(f"{args.file} defines no function {args.function!r}")
    if args.locations and args.emit != "graph":
        raise ValueError(f"--locations applies to --emit graph (the IR kiln-opt reads), not --emit {args.emit}")
    fn = _for_target(fn, _EMIT_TARGET[args.emit], args.emit)
    specs = [parse_arg_spec(a) for a in args.arg]
    concrete = fn.get_concrete_function(*specs)
    if args.locations:
        text = concrete._located_ir()  # noqa: SLF001 (the graph IR with loc(...), as lowering parses it)
    elif args.emit in ("c", "cuda"):
        text = concrete.source
    else:
        text = concrete.lowered(args.emit)
    print(text, end="")
    return 0


def _median_us(fn: Callable[[], Any], repeat: int) -> float:
    fn()
    number = 1
    while True:  # enough calls per sample to be well above timer resolution
        start = time.perf_counter()
        for _ in range(number):
            fn()
        if time.perf_counter() - start > 2e-3 or number >= 1 << 16:
            break
        number *= 4
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        samples.append((time.perf_counter() - start) / number)
    return statistics.median(samples) * 1e6


def _max_error(got: Any, want: Any) -> float:
    from kiln.frontend import pytree

    got_leaves, _ = pytree.flatten(got)
    want_leaves, _ = pytree.flatten(want)
    if len(got_leaves) != len(want_leaves):
        return float("inf")
    err = 0.0
    for g, w in zip(got_leaves, want_leaves):
        g, w = np.asarray(g), np.asarray(w)
        if g.shape != w.shape:
            return float("inf")
        if g.size:
            err = max(err, float(np.max(np.abs(g.astype(np.float64) - w.astype(np.float64)))))
    return err


@contextlib.contextmanager
def _stdout_into(file: IO[str]) -> Iterator[None]:
    """Send everything written to standard output into ``file``: Python's ``print`` and the C
    library's ``stdout`` (a compiled ``kiln.print``), so the examples' prints stay out of the table."""
    sys.stdout.flush()
    saved = os.dup(1)
    os.dup2(file.fileno(), 1)
    try:
        with contextlib.redirect_stdout(file):
            yield
    finally:
        sys.stdout.flush()
        file.flush()
        os.dup2(saved, 1)
        os.close(saved)


_DEMO_LEGEND = """\
kiln demo: each example compiled by kiln, run, and compared with NumPy doing the same.
  first call   trace + compile with gcc (skipped when kiln's cache has the C) + one run
  kiln, numpy  median time of one call after the first
  speedup      numpy time / kiln time: above 1x kiln is faster, below 1x NumPy is
  max |err|    largest difference from NumPy's result; result: its first values
"""


def cmd_demo(args: argparse.Namespace) -> int:
    from kiln.backends.c import pyext, tiering
    from kiln.examples import EXAMPLES

    width = max(len("example"), *map(len, EXAMPLES))
    print(_DEMO_LEGEND)
    print(f"{'example':<{width}} {'first call':>10} {'kiln':>10} {'numpy':>10} {'speedup':>7} {'max |err|':>9}  result")
    failed = False
    printed: dict[str, str] = {}
    for name in EXAMPLES:
        example = importlib.import_module(f"kiln.examples.{name}")
        inputs = example.inputs()
        with tempfile.TemporaryFile("w+") as out:
            with _stdout_into(out):
                start = time.perf_counter()
                result = example.FUNCTION(*inputs)
                first = time.perf_counter() - start
            out.seek(0)
            if text := out.read().split():  # shown under the table, once
                printed[name] = " ".join(text)
        with open(os.devnull, "w") as sink, _stdout_into(sink):  # the reference prints the same
            want = example.reference(*inputs)
        err = _max_error(result, want)
        ok = err <= 1e-5 * max(1.0, float(np.max(np.abs(np.asarray(_first(want), dtype=np.float64)))))
        failed |= not ok
        pyext.module()  # per-call figures are the native entry's: wait for its one-time build (a new machine)
        tiering.wait()  # and the optimized build's (a tiered first call ran a quick one)
        with open(os.devnull, "w") as sink, _stdout_into(sink):  # the examples print on every call
            t_kiln = _median_us(lambda: example.FUNCTION(*inputs), args.repeat)
            t_numpy = _median_us(lambda: example.reference(*inputs), args.repeat)
        shown = "[" + " ".join(map(_short, np.asarray(_first(result)).ravel()[:3].tolist())) + "]"
        print(
            f"{name:<{width}} {first * 1e3:>7.0f} ms {_us(t_kiln)} {_us(t_numpy)} {t_numpy / t_kiln:>6.2f}x "
            f"{err:>9.1e}  {shown}{'' if ok else '  MISMATCH'}"
        )
    for name, text in printed.items():
        print(f"\n{name} printed, on each call: {textwrap.shorten(text, 120, placeholder=' ...')}")
    failed |= not _demo_dask()
    return 1 if failed else 0


def _demo_dask() -> bool:
    """The Dask example (kiln.examples.dask_stencil) on a LocalCluster of 2 worker processes,
    against NumPy; without Dask, a line saying it is skipped and why. False on a mismatch."""
    try:
        import distributed
    except ImportError as error:
        print(f"\ndask_stencil skipped: {error} (pip install 'kiln[dask]')")
        return True
    from kiln.examples import dask_stencil as example

    inputs = example.inputs()
    want = example.reference(*inputs)
    cluster = distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None)
    with cluster, distributed.Client(cluster):
        start = time.perf_counter()
        results = example.on_cluster(*inputs)
        took = time.perf_counter() - start
    err = max(_max_error(got, want) for got in results)
    ok = err <= 1e-12 * float(np.max(np.abs(want)))
    print(f"\ndask_stencil on a LocalCluster of 2 worker processes, chunks of {example.CHUNK}: as a kiln.function\n"
          f"and as dask.array under kiln.dask.optimize, {took:.1f} s with compiles, max |err| {err:.1e}"
          f"{'' if ok else '  MISMATCH'}")
    return ok


def cmd_lit_config(args: argparse.Namespace) -> int:
    from kiln.tools.lit_config import write_lit_config

    path = write_lit_config(Path(args.folder), args.name, args.force)
    print(f"wrote {path}; run the tests with: lit {args.folder}")
    return 0


def _us(t: float) -> str:
    """A time per call in the demo's table, 10 wide (``   0.35 us``, ``   84.6 us``, ``   1539 us``)."""
    return f"{t:>7.{2 if t < 10 else 1 if t < 100 else 0}f} us"


def _short(value: Any) -> str:
    """A result's value in the demo's table: floats to 4 decimals (``0.0043``, ``9.0``)."""
    return np.format_float_positional(value, precision=4, trim="0") if isinstance(value, float) else str(value)


def _first(value: Any) -> Any:
    return value[0] if isinstance(value, tuple) else value


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``kiln`` console script."""
    parser = argparse.ArgumentParser(prog="kiln", description="kiln: compile Python array functions")
    sub = parser.add_subparsers(dest="command", required=True)
    p_compile = sub.add_parser("compile", help="print a function's IR at a stage, or its C source")
    p_compile.add_argument("file", help="a Python file")
    p_compile.add_argument("function", help="the function's name in that file")
    p_compile.add_argument("--arg", action="append", default=[],
                           help="argument type, e.g. f32[3,3] or float32[3,?] (repeat per argument)")
    p_compile.add_argument("--emit", default="graph", choices=list(_EMIT_TARGET),
                           help="a stage's IR (loops: C's; parallel, gpu: CUDA's) or the C or CUDA source")
    p_compile.add_argument("--locations", action="store_true",
                           help="keep every op's source location (loc(...)) in --emit graph; kiln-opt reads it back")
    p_compile.set_defaults(run=cmd_compile)
    p_demo = sub.add_parser("demo", help="compile and run the bundled examples against NumPy")
    p_demo.add_argument("--repeat", type=int, default=7, help="timing samples per measurement")
    p_demo.set_defaults(run=cmd_demo)
    p_lit = sub.add_parser("lit-config", help="write FOLDER/lit.cfg.py for a project's lit tests of its passes")
    p_lit.add_argument("folder", help="the folder of the lit tests (created if missing)")
    p_lit.add_argument("--name", help="the test suite's name (default: the project folder's name)")
    p_lit.add_argument("--force", action="store_true", help="replace an existing lit.cfg.py")
    p_lit.set_defaults(run=cmd_lit_config)
    p_fuzz = sub.add_parser("fuzz-opt", help="run kiln-opt on mutations of lit tests' inputs: never a traceback "
                            "or a hang", description=opt_fuzz.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    opt_fuzz.add_arguments(p_fuzz)
    p_fuzz.set_defaults(run=opt_fuzz.run)
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except KeyboardInterrupt:
        return _exits.interrupted("kiln")
    except BrokenPipeError:
        return _exits.output_closed()
    except Exception as e:  # noqa: BLE001 (the user's error: their frames, not kiln's)
        if frames := user_frames(e):
            print(f"kiln: error: {describe(e, frames)}", file=sys.stderr)
        elif isinstance(e, _user_errors()):
            print(f"kiln: error: {e}", file=sys.stderr)
        else:
            raise  # a bug in kiln: its whole traceback, for a bug report
        return 1


def _user_errors() -> tuple[type[BaseException], ...]:
    """What kiln raises for a user's mistake (the message names the user's file and line)."""
    from xdsl.utils.exceptions import DiagnosticException

    from kiln.frontend.concrete import KilnCompileError

    return (ValueError, TypeError, NotImplementedError, OSError, NameError, SyntaxError, KilnCompileError,
            DiagnosticException)


if __name__ == "__main__":
    sys.exit(main())
