"""``kiln``: compile a function from a Python file without glue code, or run the demo.

    kiln compile model.py lstm_cell --arg f32[10,10] --arg f32[10,40] --emit c
    kiln demo
    kiln lit-config tests      # tests/lit.cfg.py, for a project's lit tests of its own passes

``--arg`` takes ``DTYPE[DIMS]`` (``f32[3,3]``, ``i64[?]``, ``f64[]``; ``?`` is a
dynamic dim); ``--emit`` is a stage name (``graph``, ``tensor``, ``buffer``,
``loops``) or ``c`` for the emitted source.
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

from kiln.tools._load import load_file

_DTYPES = {
    "f32": "float32",
    "f64": "float64",
    "i32": "int32",
    "i64": "int64",
    "bool": "bool",
    "i1": "bool",
}
# the other dtypes, in the graph dialect's spelling (docs/ir-reference.md, "Element types")
_DTYPES.update({"i8": "int8", "i16": "int16", **{f"ui{w}": f"uint{w}" for w in (8, 16, 32, 64)}})


def parse_arg_spec(text: str) -> Any:
    """``f32[3,?]`` -> ``kiln.TensorSpec((3, None), "float32")``."""
    import kiln

    m = re.fullmatch(r"\s*(\w+)\s*\[([^\]]*)\]\s*", text)
    if not m or m.group(1) not in _DTYPES:
        raise ValueError(f"bad --arg {text!r}: expected DTYPE[DIMS] with DTYPE in {', '.join(_DTYPES)}, e.g. f32[3,3]")
    dims = [d.strip() for d in m.group(2).split(",") if d.strip()]
    shape = [None if d == "?" else int(d) for d in dims]
    return kiln.TensorSpec(shape, _DTYPES[m.group(1)])


def cmd_compile(args: argparse.Namespace) -> int:
    import kiln

    module = load_file(Path(args.file))
    fn = getattr(module, args.function, None)
    if fn is None:
        raise ValueError(f"{args.file} defines no function {args.function!r}")
    if not isinstance(fn, kiln.Function):
        fn = kiln.function(fn)
    specs = [parse_arg_spec(a) for a in args.arg]
    concrete = fn.get_concrete_function(*specs)
    print(concrete.source if args.emit == "c" else concrete.lowered(args.emit), end="")
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
    from kiln.backends.c import pyext
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
    return 1 if failed else 0


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
    p_compile.add_argument("--arg", action="append", default=[], help="argument type, e.g. f32[3,3] (repeat per argument)")
    p_compile.add_argument("--emit", default="graph", choices=["graph", "tensor", "buffer", "loops", "c"])
    p_compile.set_defaults(run=cmd_compile)
    p_demo = sub.add_parser("demo", help="compile and run the bundled examples against NumPy")
    p_demo.add_argument("--repeat", type=int, default=7, help="timing samples per measurement")
    p_demo.set_defaults(run=cmd_demo)
    p_lit = sub.add_parser("lit-config", help="write FOLDER/lit.cfg.py for a project's lit tests of its passes")
    p_lit.add_argument("folder", help="the folder of the lit tests (created if missing)")
    p_lit.add_argument("--name", help="the test suite's name (default: the project folder's name)")
    p_lit.add_argument("--force", action="store_true", help="replace an existing lit.cfg.py")
    p_lit.set_defaults(run=cmd_lit_config)
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except (ValueError, TypeError, NotImplementedError, OSError) as e:
        print(f"kiln: error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
