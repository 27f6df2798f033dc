"""``python -m kiln.bench.npbench --npbench DIR``: NPBench's NumPy kernels, decorated as they are.

Each ``<name>_numpy.py`` kernel of a local NPBench checkout (spcl/npbench; nothing of it is
copied into kiln) is wrapped in ``kiln.function`` unchanged, called on its preset's inputs and
compared with the same kernel run eagerly on NumPy: the return value and every argument
array (in-place writes must match). Each kernel runs in a child process with a time limit,
so a crash or a hang is a row of the table, not the end of the run.

Results: ``right``, ``wrong`` (a silent mismatch), ``refused`` (a kiln error naming the
construct), ``crash`` (any other exception, a signal, or the time limit).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import pathlib
import sys
import time
import traceback
from typing import Any

import numpy as np

#: exception types kiln raises for a program it refuses on purpose (anything else is a crash)
_REFUSALS = ("KilnCompileError", "NotImplementedError", "TypeError", "IndexError", "ValueError", "UnboundLocalError")


def _load(path: pathlib.Path, name: str) -> Any:
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _inputs(root: pathlib.Path, info: dict[str, Any], preset: str) -> dict[str, Any]:
    """The preset's parameters plus the arrays NPBench's ``initialize`` makes from them."""
    bench = info["benchmark"]
    folder = root / "npbench" / "benchmarks" / bench["relative_path"]
    params = dict(bench["parameters"][preset])
    init = bench.get("init")
    if init:
        module = _load(folder / f"{bench['module_name']}.py", f"npb_init_{bench['module_name']}")
        made = getattr(module, init["func_name"])(*(params[a] for a in init["input_args"]))
        outs = init["output_args"]
        made = (made,) if len(outs) == 1 else made
        params.update(zip(outs, made))
    return params


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return False
    if a.dtype.kind in "fc" or b.dtype.kind in "fc":
        return bool(np.allclose(a, b, rtol=1e-5, atol=1e-8, equal_nan=True))
    return bool(np.array_equal(a, b))


def _copy(args: dict[str, Any]) -> dict[str, Any]:
    return {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in args.items()}


def check_one(root: str, info_path: str, preset: str, queue: Any) -> None:
    """Child process: run one kernel eagerly and compiled; put (result, seconds, detail) on ``queue``."""
    try:
        import kiln

        info = json.loads(pathlib.Path(info_path).read_text())
        bench = info["benchmark"]
        folder = pathlib.Path(root) / "npbench" / "benchmarks" / bench["relative_path"]
        sys.path.insert(0, str(folder))
        module = _load(folder / f"{bench['module_name']}_numpy.py", f"npb_{bench['module_name']}_numpy")
        func = getattr(module, bench["func_name"])
        args = _inputs(pathlib.Path(root), info, preset)
        names = bench["input_args"]
        eager_args, kiln_args = _copy(args), _copy(args)
        expected = func(*(eager_args[n] for n in names))
        compiled = kiln.function(func)
        start = time.perf_counter()
        try:
            got = compiled(*(kiln_args[n] for n in names))
        except Exception as e:  # noqa: BLE001 - classified below
            seconds = time.perf_counter() - start
            kind = "refused" if type(e).__name__ in _REFUSALS else "crash"
            first = str(e).strip().splitlines()[0] if str(e).strip() else ""
            queue.put((kind, seconds, f"{type(e).__name__}: {first}"[:200]))
            return
        seconds = time.perf_counter() - start
        bad = [] if _same(expected, got) else ["return value"]
        bad += [n for n in bench.get("array_args", []) if not _same(eager_args[n], kiln_args[n])]
        queue.put(("wrong" if bad else "right", seconds, ("differs: " + ", ".join(bad)) if bad else ""))
    except BaseException as e:  # noqa: BLE001 - the harness itself failed
        queue.put(("crash", 0.0, f"harness: {type(e).__name__}: {e}"[:200] + traceback.format_exc()[-300:]))


def run(root: pathlib.Path, preset: str, timeout: float, only: list[str] | None) -> list[tuple[str, str, float, str]]:
    rows = []
    ctx = mp.get_context("spawn")
    for info_path in sorted((root / "bench_info").glob("*.json")):
        name = info_path.stem
        if only and name not in only:
            continue
        queue = ctx.Queue()
        proc = ctx.Process(target=check_one, args=(str(root), str(info_path), preset, queue))
        proc.start()
        proc.join(timeout)
        if proc.is_alive():
            proc.kill()
            proc.join()
            rows.append((name, "crash", timeout, f"no answer within {timeout:.0f} s"))
        elif not queue.empty():
            kind, seconds, detail = queue.get()
            rows.append((name, kind, seconds, detail))
        else:
            rows.append((name, "crash", 0.0, f"child exited with code {proc.exitcode}"))
        print(f"{name:24} {rows[-1][1]:8} {rows[-1][2]:7.2f}s  {rows[-1][3]}", flush=True)
    return rows


def table(rows: list[tuple[str, str, float, str]]) -> str:
    counts = {k: sum(r[1] == k for r in rows) for k in ("right", "wrong", "refused", "crash")}
    lines = ["| kernel | result | first call (s) | detail |", "|---|---|---|---|"]
    lines += [f"| {n} | {k} | {s:.2f} | {d.replace('|', '/')} |" for n, k, s, d in rows]
    lines.append("")
    lines.append(" ".join(f"{k}: {v}" for k, v in counts.items()) + f" (of {len(rows)})")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--npbench", required=True, type=pathlib.Path, help="a local checkout of spcl/npbench")
    parser.add_argument("--preset", default="S")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per kernel")
    parser.add_argument("--only", nargs="*", help="kernel names (bench_info stems)")
    args = parser.parse_args(argv)
    rows = run(args.npbench, args.preset, args.timeout, args.only)
    print()
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
