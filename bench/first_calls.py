"""First-call time of small functions (issue 39): each case in a new process, timed around its
first call only (kiln imported and the function decorated before).

* ``cold``: an empty cache directory holding only what kiln builds once per machine (the native
  entry extension, the kernels' precompiled headers, the GEMM runtime's libraries, the syntax trees of kiln's own rule files,
  the code of the dataclasses of kiln's own modules; the precompiled headers checked once, as
  by the machine's first compile, so that a later one trusts their stamp instead of hashing 20 MB),
  so the call traces, lowers, emits, compiles and loads. The seed stays in place between runs
  (each run's own files are removed), as on a user's machine.
* ``warm``: a new process on the cache the cold run left: the call traces and finds its C and
  shared object in the disk cache.

Each figure is the median of ``--rounds`` runs, in ms: wall time, and CPU time (the process's
and its compilers', which a busy machine inflates less). With ``--npbench DIR`` (a checkout of
spcl/npbench) the cases are NPBench's kernels at preset S instead, decorated as they are
(bench/npbench.py checks their answers), and the table ends with the median and the largest.
Run::

    python -m kiln.bench.first_calls --rounds 5
    python -m kiln.bench.first_calls --rounds 1 --npbench /work/npbench
    python -m kiln.bench.first_calls --rounds 1 --cases lstm_cell --cache /tmp/seeded  # seeded once
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from kiln.examples import EXAMPLES

#: small functions of the issue: name -> (body, argument shapes; float32)
SNIPPETS: dict[str, tuple[str, tuple[tuple[int, ...], ...]]] = {
    "x * 2 + 1": ("return x * 2 + 1", ((64, 64),)),
    "tanh(x @ y + 1).sum(0)": ("return np.tanh(x @ y + 1.0).sum(axis=0)", ((64, 64), (64, 64))),
}

_CHILD = r"""
import contextlib, json, os, resource, sys, time
import numpy as np
import kiln

case, out = sys.argv[1], sys.argv[2]
snippets = json.loads(sys.argv[3])
if case.startswith("npbench:"):  # npbench:<checkout>:<bench_info path>
    from kiln.bench.npbench import _kernel
    _, root, info = case.split(":", 2)
    bench, _, func, params = _kernel(root, info, "S")
    fn, args = kiln.function(func), tuple(params[n] for n in bench["input_args"])
elif case in snippets:  # a module file, so that AutoGraph reads its source as a user's
    import importlib.util
    body, shapes = snippets[case]
    path = os.path.join(os.path.dirname(out), "snippet_fn.py")
    with open(path, "w") as f:
        f.write(f"import numpy as np\nimport kiln\n\n@kiln.function\ndef fn({', '.join('xyzw'[:len(shapes)])}):\n    {body}\n")
    spec = importlib.util.spec_from_file_location("snippet_fn", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    fn = module.fn
    rng = np.random.default_rng(0)
    args = tuple(rng.standard_normal(s).astype(np.float32) for s in shapes)
else:
    import importlib
    example = importlib.import_module(f"kiln.examples.{case}")
    fn, args = example.FUNCTION, example.inputs()


def cpu() -> float:
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):  # kiln.print in fizzbuzz
    c0, t0 = cpu(), time.perf_counter()
    fn(*args)
    t1, c1 = time.perf_counter(), cpu()
with open(out, "w") as f:
    json.dump({"wall": t1 - t0, "cpu": c1 - c0}, f)
"""

_SEED = r"""
from kiln.backends.targets import get_backend
from kiln.backends.c import pyext
get_backend("c")
pyext.module()
try:  # kiln's own rule files parsed (since 2026-11-29: once per machine and kiln, as the above)
    from kiln.frontend.plan_cache import keep_rule_syntax
except ImportError:
    pass
else:
    from kiln.passes.rules import library_files, load_rules
    keep_rule_syntax()
    load_rules([f"kiln:{p.stem}" for p in library_files()])
try:  # the code of the dataclasses kiln's modules define (since 2026-11-29: stored once per machine
    from kiln import dataclass_code  # and Python by the first process defining each; stored at exit)
except ImportError:
    pass
else:
    import kiln.backends.c.emitter
    from kiln import pipelines, universe
    for name in universe.pass_names():
        universe.load_pass(name)
    for stage in pipelines.STAGES.values():
        universe.build_pipeline(stage)
    for dialect in universe.DIALECTS.values():
        dialect()
try:  # the GEMM/GEMV runtime's libraries (since 2026-11-29: built once per machine, as the above)
    from kiln.backends.c import shared_runtime
except ImportError:
    pass
else:
    from kiln.backends.c import toolchain
    for name in shared_runtime.DEFINITIONS:
        toolchain.runtime_library(name, wait=True)
try:
    from kiln.backends.c import prelude
except ImportError:  # a kiln before precompiled headers
    pass
else:
    prelude.wait()
    from kiln.backends import cache
    for gch in cache.cache_dir().glob("*.gch"):  # checked, as by a machine's first compile: later
        if hasattr(cache, "is_checked_since"):  # ones trust its stamp and hash none of its 20 MB
            cache.is_checked_since(gch)
"""


def _run(code: str, args: list[str], cache: Path) -> None:
    # bytecode cached as an installed kiln's is (pip compiles it): with PYTHONDONTWRITEBYTECODE
    # set, as on the project's machines, every child compiled the passes' sources again (~0.1 s)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(KILN_CACHE_DIR=str(cache), KILN_PROGRESS="0")
    subprocess.run([sys.executable, "-c", code, *args], env=env, check=True, stdout=subprocess.DEVNULL)


def _time(case: str, cache: Path) -> dict[str, float]:
    out = cache.parent / "result.json"  # beside the cache: its snippet module too (the same path each run)
    _run(_CHILD, [case, str(out), json.dumps(SNIPPETS)], cache)
    return json.loads(out.read_text())


def _seeded(cache: Path) -> set[Path]:
    """The once-per-machine builds in ``cache``, made now unless a list of them is beside it (a
    cache kept between runs with ``--cache``, so that interleaved runs of two checkouts, one case
    each, need no seed each)."""
    listing = cache.with_name(cache.name + ".seed.json")
    if not listing.exists():
        _run(_SEED, [], cache)  # kept in place (a copy would change their stat, and a copied
        listing.write_text(json.dumps(sorted(map(str, cache.rglob("*")))))  # header is checked again)
    return set(map(Path, json.loads(listing.read_text())))


def measure(cases: list[str], rounds: int, kept: Path | None = None) -> dict[str, dict[str, list[float]]]:
    """{case: {"cold wall": [...], "cold cpu": [...], "warm wall": [...], "warm cpu": [...]}} in
    seconds; in the cache directory ``kept`` (seeded on first use) or in a temporary one."""
    results: dict[str, dict[str, list[float]]] = {c: {} for c in cases}
    with tempfile.TemporaryDirectory(prefix="kiln-first-calls-") as tmp:
        cache = kept.absolute() if kept is not None else Path(tmp) / "cache"
        seeded = _seeded(cache)
        for _ in range(rounds):
            for case in cases:
                _remove_all_but(cache, seeded)
                for mode in ("cold", "warm"):
                    got = _time(case, cache)
                    for kind, value in got.items():
                        results[case].setdefault(f"{mode} {kind}", []).append(value)
        if kept is None:
            _remove_all_but(cache, set())
    return results


def _remove_all_but(cache: Path, keep: set[Path]) -> None:
    """Remove what ``cache`` holds but ``keep`` (a folder's files before it). A build a case left
    running in the background (the -O2 tier, a precompiled header) may still be writing there, so a
    folder not yet empty is tried again, for up to a minute (the bench crashed on it)."""
    deadline = time.monotonic() + 60
    while True:
        try:
            for path in sorted(set(cache.rglob("*")) - keep, reverse=True):
                if path.is_dir():
                    path.rmdir()
                else:
                    path.unlink(missing_ok=True)
            return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def table(results: dict[str, dict[str, list[float]]]) -> str:
    """A markdown table of the medians, in ms; then, over the cases, their median and largest."""
    cols = ("cold wall", "cold cpu", "warm wall", "warm cpu")
    rows = ["| case | " + " | ".join(f"{c} (ms)" for c in cols) + " |", "|---|" + "---|" * len(cols)]
    medians = {case: {c: statistics.median(got[c]) for c in cols} for case, got in results.items()}
    for case, got in medians.items():  # (an NPBench case is named by its bench_info file's stem)
        name = Path(case).stem if case.startswith("npbench:") else case
        rows.append(f"| {name} | " + " | ".join(f"{got[c] * 1e3:.0f}" for c in cols) + " |")
    for label, over in (("median of the cases", statistics.median), ("largest", max)):
        figures = (over(m[c] for m in medians.values()) * 1e3 for c in cols)
        rows.append(f"| {label} | " + " | ".join(f"{f:.0f}" for f in figures) + " |")
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--cases", nargs="*", help="names of snippets and examples, or with --npbench of kernels")
    parser.add_argument("--npbench", type=Path, help="a checkout of spcl/npbench: time its kernels at preset S")
    parser.add_argument("--cache", type=Path, help="a cache directory kept between runs (seeded on first use)")
    args = parser.parse_args()
    if args.npbench is not None:
        infos = sorted((args.npbench / "bench_info").glob("*.json"))
        cases = [f"npbench:{args.npbench}:{p}" for p in infos if not args.cases or p.stem in args.cases]
    else:
        cases = args.cases or [*SNIPPETS, *EXAMPLES]
    print(table(measure(cases, args.rounds, args.cache)))


if __name__ == "__main__":
    main()
