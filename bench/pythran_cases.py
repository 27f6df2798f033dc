"""``python -m kiln.bench.pythran_cases --pythran DIR``: Pythran's test cases, decorated as they are.

A second yardstick beside NPBench, in the scalar-loop style: the kernels of a local Pythran
checkout's ``pythran/tests/cases`` (serge-sans-paille/pythran; nothing of it is copied into
kiln). Each case file names its entry points in ``#pythran export NAME(...)`` comments and its
calls in ``#runas`` lines (statements separated by ``;``, the last one the call). For every
``#runas`` line, the file runs twice in a child process with a time limit: once as Python, and
once with each exported function wrapped in ``kiln.function`` (helpers stay plain Python, traced
through). Both runs evaluate the call's arguments from the same seeded random state and get
their own deep copies.

The verdict compares the return value and every argument after the call, strictly: Python types
must be the same (a list is not an ndarray, a Python ``float`` is not ``np.float64``); arrays must
have NumPy's dtype and shape and values within ``rtol`` (1e-9 for float64 / complex128, 1e-4 for
narrower floats). A case whose Python answer changes with the random seed is compared by type,
dtype and shape only (``random`` in the detail).

The table gives kiln's first call in seconds (trace, compile and run) where it answered.

Results: ``right``; ``wrong`` (a silent mismatch, the worst); ``refused`` (a kiln error naming the
user's file and line, other than kiln's own ``KilnCompileError``); ``crash`` (any other exception,
a signal, or the time limit); ``invalid`` (the case does not run as Python 3 with this NumPy: not
kiln's to answer).
"""

from __future__ import annotations

import argparse
import ast
import copy
import json
import math
import os
import pathlib
import random
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

_EXPORT = re.compile(r"^#\s*pythran\s+export\s+(?:capsule\s+)?([A-Za-z_]\w*)", re.M)
_RUNAS = ("#runas ", "# runas ")


def cases(root: pathlib.Path) -> list[tuple[pathlib.Path, int, str]]:
    """Every ``(file, index, runas)`` of the checkout's cases folder, in name order."""
    folder = root / "pythran" / "tests" / "cases"
    if not folder.is_dir():
        raise SystemExit(f"no Pythran cases folder at {folder}")
    found = []
    for path in sorted(folder.glob("*.py")):
        lines = [line.split(" ", 1)[1].strip() if line.startswith("#runas ") else line[len("# runas "):].strip()
                 for line in path.read_text(errors="replace").splitlines() if line.startswith(_RUNAS)]
        found += [(path, i, text) for i, text in enumerate(lines)]
    return found


def _rtol(a: np.ndarray) -> float:
    return 1e-9 if a.dtype in (np.float64, np.complex128) else 1e-4


def differs(want: Any, got: Any, where: str = "result") -> str | None:
    """Why ``got`` is not ``want`` (None when it is), Python types included."""
    if type(want) is not type(got):
        return f"{where}: {type(want).__name__} in Python, {type(got).__name__} under kiln"
    if isinstance(want, (list, tuple)):
        if len(want) != len(got):
            return f"{where}: length {len(want)} in Python, {len(got)} under kiln"
        return next((d for i, (w, g) in enumerate(zip(want, got)) if (d := differs(w, g, f"{where}[{i}]"))), None)
    if isinstance(want, dict):
        if list(want) != list(got):
            return f"{where}: keys differ"
        return next((d for k in want if (d := differs(want[k], got[k], f"{where}[{k!r}]"))), None)
    if isinstance(want, (np.ndarray, np.generic)):
        w, g = np.asarray(want), np.asarray(got)
        if w.dtype != g.dtype or w.shape != g.shape:
            return f"{where}: {w.dtype}{list(w.shape)} in Python, {g.dtype}{list(g.shape)} under kiln"
        if w.dtype.kind in "fc":
            ok = np.allclose(g, w, rtol=_rtol(w), atol=_rtol(w) * float(np.nanmax(np.abs(w), initial=0.0)), equal_nan=True)
        else:
            ok = np.array_equal(w, g)
        return None if ok else f"{where}: values differ"
    if isinstance(want, (float, complex)):
        close = (math.isnan(abs(want)) and math.isnan(abs(got))) or abs(want - got) <= 1e-9 * max(abs(want), 1e-300)
        return None if close else f"{where}: {want!r} in Python, {got!r} under kiln"
    try:
        return None if want == got else f"{where}: {want!r} in Python, {got!r} under kiln"
    except Exception as e:  # noqa: BLE001 - an object without a plain ==
        return f"{where}: cannot compare ({type(e).__name__})"


def _shape_only(want: Any, got: Any) -> str | None:
    """Type, dtype and shape: what a random case must keep."""
    if type(want) is not type(got):
        return f"result: {type(want).__name__} in Python, {type(got).__name__} under kiln"
    if isinstance(want, np.ndarray) and (want.dtype, want.shape) != (got.dtype, got.shape):
        return f"result: {want.dtype}{list(want.shape)} in Python, {got.dtype}{list(got.shape)} under kiln"
    return None


def _module(path: pathlib.Path, wrap: bool) -> dict[str, Any]:
    """The case file run as a module, its exported functions wrapped in ``kiln.function`` if asked."""
    source = path.read_text()
    ns: dict[str, Any] = {"__name__": f"pythran_case_{path.stem}", "__file__": str(path)}
    exec(compile(source, str(path), "exec"), ns)  # noqa: S102 - the case is the program under test
    if wrap:
        import kiln
        for name in dict.fromkeys(_EXPORT.findall(source)):
            if callable(ns.get(name)):
                ns[name] = kiln.function(ns[name])
    return ns


def _call(ns: dict[str, Any], runas: str, seed: int) -> tuple[Any, list[Any]]:
    """Run ``runas`` in ``ns``: its statements, then its last call on deep copies of its arguments."""
    parts = runas.split(";")
    random.seed(seed)
    np.random.seed(seed)
    exec(";".join(parts[:-1]), ns)  # noqa: S102
    call = ast.parse(parts[-1].strip(), mode="eval").body
    if not isinstance(call, ast.Call):
        return eval(parts[-1].strip(), ns), []  # noqa: S307
    evaluate = lambda node: eval(compile(ast.Expression(node), "<runas>", "eval"), ns)  # noqa: E731, S307
    func = evaluate(call.func)
    args = [_copy(v) for a in call.args for v in (evaluate(a.value) if isinstance(a, ast.Starred) else [evaluate(a)])]
    kwargs = {k.arg: _copy(evaluate(k.value)) for k in call.keywords}
    return func(*args, **kwargs), args + list(kwargs.values())


def _copy(value: Any) -> Any:
    """A deep copy of an argument; a module (``np`` passed as an argument) is itself."""
    return value if isinstance(value, type(np)) else copy.deepcopy(value)


def _first_line(e: BaseException) -> str:
    text = str(e).strip()
    return f"{type(e).__name__}: {text.splitlines()[0] if text else ''}"[:300]


def check_one(path: pathlib.Path, runas: str) -> dict[str, Any]:
    """The verdict on one ``#runas`` line (run in a child process)."""
    try:
        want, want_args = _call(_module(path, wrap=False), runas, 0)
        random_case = "random" in path.read_text() and differs(want, _call(_module(path, wrap=False), runas, 1)[0]) is not None
    except BaseException as e:  # noqa: BLE001 - the case itself does not run as Python 3
        return {"kind": "invalid", "detail": _first_line(e)}
    try:
        start = time.perf_counter()
        got, got_args = _call(_module(path, wrap=True), runas, 0)
        seconds = time.perf_counter() - start
    except BaseException as e:  # noqa: BLE001 - classified by whether it names the user's line
        from kiln import KilnCompileError  # (kiln's own failure: its IR, printed with the user's lines, is no refusal)

        named = re.search(re.escape(str(path)) + r":\d+", str(e)) is not None and not isinstance(e, KilnCompileError)
        return {"kind": "refused" if named else "crash", "detail": _first_line(e)}
    if random_case:
        bad = _shape_only(want, got)
    else:
        bad = differs(want, got) or next((d for i, (w, g) in enumerate(zip(want_args, got_args))
                                          if (d := differs(w, g, f"argument {i}"))), None)
    return {"kind": "wrong" if bad else "right", "detail": (bad or "") + (" (random)" if random_case else ""),
            "seconds": round(seconds, 2)}


def _in_child(path: pathlib.Path, runas: str, timeout: float) -> dict[str, Any]:
    cmd = [sys.executable, "-m", "kiln.bench.pythran_cases", "--one", str(path), runas]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=path.parent)
    except subprocess.TimeoutExpired:
        return {"kind": "crash", "detail": f"no answer within {timeout:.0f} s"}
    lines = [line for line in done.stdout.splitlines() if line.startswith("{\"kind\"")]
    if not lines:
        return {"kind": "crash", "detail": f"exit {done.returncode}: {done.stderr.strip().splitlines()[-1:]}"}
    return json.loads(lines[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pythran", type=pathlib.Path, help="a Pythran checkout (serge-sans-paille/pythran)")
    parser.add_argument("--only", default="", help="comma-separated case names")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--out", type=pathlib.Path, help="write the table (markdown) here too")
    parser.add_argument("--one", nargs=2, metavar=("FILE", "RUNAS"), help=argparse.SUPPRESS)
    opts = parser.parse_args()
    if opts.one:
        print(json.dumps(check_one(pathlib.Path(opts.one[0]), opts.one[1])), flush=True)
        return
    if opts.pythran is None:
        parser.error("--pythran DIR is required")
    only = set(filter(None, opts.only.split(",")))
    todo = [c for c in cases(opts.pythran) if not only or c[0].stem in only]
    def one(case: tuple[pathlib.Path, int, str]) -> str:
        v = _in_child(case[0], case[2], opts.timeout)
        verdicts.append(v)
        seconds = f"{v['seconds']:.2f}" if "seconds" in v else ""
        row = f"| {case[0].stem}:{case[1]} | {v['kind']} | {seconds} | {v.get('detail', '').replace('|', '/')} |"
        print(row, flush=True)
        return row

    verdicts: list[dict[str, Any]] = []
    with ThreadPoolExecutor(max(1, opts.jobs)) as pool:
        rows = ["| case | verdict | kiln's call (s) | detail |", "|---|---|---|---|", *pool.map(one, todo)]
    counts = {k: sum(v["kind"] == k for v in verdicts) for k in ("right", "wrong", "refused", "crash", "invalid")}
    summary = ", ".join(f"{n} {k}" for k, n in counts.items())
    print(summary)
    if opts.out:
        opts.out.write_text("\n".join(rows) + "\n\n" + summary + "\n")


if __name__ == "__main__":
    main()
