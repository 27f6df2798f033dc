"""Compile emitted C into a cached shared object with the system C compiler.

Flags (``DEFAULT_OPT_FLAGS``), and why:

* ``-O2 -ftree-loop-vectorize -fvect-cost-model=dynamic -march=native``: -O2 plus gcc's loop
  vectorizer, for this host's ISA; not ``-O3``. gcc 12.2's -O3-only pass ``cunrolli`` (complete
  unrolling of inner loops before vectorization) made straight-line vector code in which a load
  of an array was moved after a store to the same bytes (IRA took the load for an unchanged
  memory equivalent): kiln.fuzz 1138-171, ``for _ in range(3): a[:, ::-1] += a`` on a 6x6 array,
  came out wrong in row 3, with AVX-512 and with ``-march=haswell`` alike; a 12-line C program
  without kiln shows it. -O3's other passes are superlinear in a function's size (NPBench's
  channel_flow: 8.0 s in gcc at -O3, 2.2 s so), and kiln vectorizes its loops itself: NPBench's
  kernels at preset S ran as fast (53 kernels, each within 0.89x-1.13x of -O3; geometric mean
  1.01x, 2026-11-26).
* ``-ffp-contract=off``: no implicit a*b+c → fma fusion (gcc's default in GNU mode),
  so + - * / round exactly like NumPy. No ``-ffast-math`` for the same reason.
* ``-fno-math-errno``: libm calls need not set errno, so ``sqrt`` becomes one
  instruction and loops calling math functions can vectorise; results are unchanged.
* Not ``-fno-trapping-math``, though kiln never reads the FP exception flags: it lets gcc
  vectorize loops whose selects guard a division (NPBench's mandelbrot1 57 -> 28 ms), but then
  gcc 12's SLP ``addsub`` pattern fuses a product into the alternating add and subtract of a
  complex value's real and imaginary lanes (``vfmsubadd``) whatever ``-ffp-contract`` says, and
  Smith's division and integer powers of complex arrays differed from NumPy in the last bit.
* ``-fwrapv``: signed integer overflow wraps, matching MLIR's arith semantics.
* ``-fno-tree-slp-vectorize``: gcc 12.2's straight-line vectorizer drops a float64 -> float32
  -> float64 round trip on two-lane groups (``(double)(float)x`` becomes ``x``; NumPy's
  ``x.astype(np.float32).astype(np.float64)`` on 2x5 came out unrounded in its last two
  elements). kiln vectorizes its loops itself; gcc's loop vectorizer stays on.
* ``-fno-tree-loop-distribute-patterns``: gcc 12.2 at -O3 (the pass runs at -O2 too) with
  AVX-512 folded a 5-element int64 row wrongly (kiln.fuzz 1134-4849: ``v[i] = concatenate([full(2, 5), v.sum(1)]) > 0``
  stored ``[1,1,1,1,0]`` for ``[1,1,0,0,0]``; the whole function was constant-folded, and
  value numbering looked through the zero-fill loop gcc had made a ``memset`` of). Without
  that pattern (loops stay loops; kiln's zero fills are short) the result is right; -mavx2,
  -O2 and -fno-tree-fre were right too. tests/test_fuzz_regressions.py keeps the program.
* ``-falign-loops=64``: a loop starts a cache line (gcc's default is 16 bytes). A tight
  loop that straddles two 64-byte lines runs slower on this machine's Zen 3 (Collatz's
  8-instruction inner loop: 16.5 ms across a line boundary, 13.5 ms within one; the same
  code in a static binary, placed within a line by chance, 11-14 ms). Costs a few no-ops.

A large source's first build may be a quick one (``QUICK_OPT_FLAGS``: ``-Og`` instead of
``-O2``), replaced by the -O2 build made in the background (backends/c/tiering.py).

A kernel with kiln's GEMM/GEMV runtime pasted in (backends/c/shared_runtime.py), built with either
of kiln's flags, compiles with the runtime's declarations instead and links the runtime's libraries,
built once per machine at -O2 with ``RUNTIME_FLAGS`` (NPBench's gemm at S: 0.42 -> 0.13 s of gcc at
-O2, 0.18 -> 0.10 s at -Og); until they are built, or where they cannot be, it compiles as it is.

A source cut into parts by ``kiln-outline-parts`` (backends/c/parts.py) compiles as one
translation unit per core at most, in parallel, linked into the one shared object: gcc is
single-threaded, and channel_flow's 1.0 s in gcc was a third of its first call.

Always added: ``-fPIC -shared -fvisibility=hidden`` (only public funcs are exported) and ``-lm``;
``-fopenmp`` when the source has ``#pragma omp`` (parallel kernels; threads: ``KILN_NUM_THREADS``);
``-include <prelude>`` when the source's opening ``#include`` lines have a precompiled header
for its flags, ``-fopenmp`` included (backends/c/prelude.py: the same code, without gcc reading
the intrinsic headers again).
"""

from __future__ import annotations

import atexit
import functools
import os
import platform
import shutil
import subprocess
import threading
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import NamedTuple

from kiln.backends import cache
from kiln.backends.c import parts, prelude, shared_runtime

DEFAULT_OPT_FLAGS: tuple[str, ...] = (
    "-O2",
    "-ftree-loop-vectorize",
    "-fvect-cost-model=dynamic",
    "-march=native",
    "-ffp-contract=off",
    "-fno-math-errno",
    "-fwrapv",
    "-fno-tree-slp-vectorize",
    "-fno-tree-loop-distribute-patterns",
    "-falign-loops=64",
)
#: the quick tier's flags (backends/c/tiering.py): the same but ``-Og``, which compiles kiln's larger
#: sources 2-3x faster than -O2 (the GEMM runtime's micro-kernels above all), for a first call to
#: run while the -O2 build is made in the background; it has a precompiled prelude of its own
#: (one built with -O2 lends the quick compile its optimization settings: other code)
QUICK_OPT_FLAGS: tuple[str, ...] = tuple("-Og" if flag == "-O2" else flag for flag in DEFAULT_OPT_FLAGS)
#: the shared GEMM runtime's flags: kiln's -O2 ones, its exported functions inlined where they call
#: each other (as the static ones of a kernel's own copy are)
RUNTIME_FLAGS: tuple[str, ...] = (*DEFAULT_OPT_FLAGS, "-fno-semantic-interposition")
#: the environment variable that turns tiering off (``KILN_TIERING=0``; docs/user-guide.md)
TIERING_ENV = "KILN_TIERING"
# -Bsymbolic: calls inside the object bind to its own functions, never to a same-named
# global symbol (a kernel named `step` must not call libc's regexp `step`).
_SHARED_FLAGS: tuple[str, ...] = ("-fPIC", "-shared", "-fvisibility=hidden", "-Wl,-Bsymbolic")
#: flags only the link step of a source compiled in parts takes
_LINK_FLAGS = frozenset({"-shared", "-Wl,-Bsymbolic"})

_runtime_lock = threading.Lock()
#: the shared runtime's libraries this process builds, and those whose build failed
_runtime_builders: dict[Path, threading.Thread] = {}
_runtime_failures: set[Path] = set()


class CompileError(RuntimeError):
    """The C compiler rejected the source; the message has its stderr and the kept source path."""


def compiler() -> str:
    """The C compiler command: ``$CC`` or ``cc``."""
    return os.environ.get("CC") or "cc"


@functools.cache
def compiler_identity(cc: str) -> str:
    """First line of ``cc --version`` (cached per process, and on disk per compiler binary, so
    that a warm start runs no compiler: 4-15 ms here): part of the cache key."""
    binary = shutil.which(cc)
    if binary is not None:  # the same file (path, size, time, inode) says the same version
        st = os.stat(os.path.realpath(binary))
        recorded = cache.entry(cache.cache_key(cc, binary, f"{st.st_size}:{st.st_mtime_ns}:{st.st_ino}"), ".cc")
        known = cache.read_checked(recorded)
        if known is not None:
            return known.decode()
    try:
        out = subprocess.run([cc, "--version"], capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        raise CompileError(f"C compiler {cc!r} is not usable: {e}") from e
    identity = out.stdout.splitlines()[0] if out.stdout else cc
    if binary is not None:
        cache.write_checked(recorded, lambda tmp: tmp.write_text(identity))
    return identity


@functools.cache
def host_identity() -> str:
    """The CPU model and feature flags, since ``-march=native`` code is only valid on such a CPU."""
    info = Path("/proc/cpuinfo")
    lines = info.read_text().splitlines() if info.exists() else []
    wanted = [ln for ln in lines if ln.startswith(("model name", "flags", "Features"))][:2]
    return "\n".join([platform.machine(), *wanted])


def shared_object_path(source: str, *, opt_flags: tuple[str, ...] = DEFAULT_OPT_FLAGS) -> Path:
    """Where :func:`compile_shared` keeps the shared object of ``source`` (it may not exist yet)."""
    return _build_plan(source, opt_flags).so_path


def is_built(source: str) -> bool:
    """Whether the default build of ``source`` is in the cache, sound (no compile would run)."""
    return cache.is_checked(shared_object_path(source))


class _Plan(NamedTuple):
    """How a source is built: the compiler, its flags, the C it compiles, the shared runtime's
    helpers it calls and their libraries, linked in, and the cached shared object."""

    cc: str
    flags: tuple[str, ...]
    text: str
    runtimes: tuple[str, ...]
    libraries: tuple[str, ...]
    so_path: Path


def _build_plan(source: str, opt_flags: tuple[str, ...], *, shared: bool = True) -> _Plan:
    """The plan for ``source``: one of kiln's builds (its own flags) of a source with the GEMM runtime
    pasted in calls the shared runtime's libraries instead (``shared``; backends/c/shared_runtime.py)."""
    cc = compiler()
    flags = (*opt_flags, *_SHARED_FLAGS, *(("-fopenmp",) if "#pragma omp" in source else ()))
    text, runtimes = source, ()
    if shared and opt_flags in (DEFAULT_OPT_FLAGS, QUICK_OPT_FLAGS):
        runtimes = shared_runtime.used(source)
        text = shared_runtime.calling(source, runtimes)
    libraries = tuple(str(_runtime_path(name)) for name in runtimes)
    key = cache.cache_key(text, compiler_identity(cc), flags, libraries, host_identity())
    return _Plan(cc, flags, text, runtimes, libraries, cache.entry(key, ".so"))


def compile_shared(source: str, *, opt_flags: tuple[str, ...] = DEFAULT_OPT_FLAGS, background: bool = False) -> Path:
    """Return the path of a shared object built from ``source``; a cache hit (checked against its
    recorded sha256, else rebuilt with a warning) runs no compiler.
    A ``background`` compile runs at the lowest CPU priority (``nice``), so that on a busy or
    single core it does not slow the compile a call is waiting for."""
    plan = _build_plan(source, opt_flags)
    if not all([runtime_library(name) for name in plan.runtimes]):  # (a list: each one's build started)
        plan = _build_plan(source, opt_flags, shared=False)  # the runtime compiled in, the same code
    if cache.is_checked(plan.so_path):  # a damaged .so would crash dlopen (SIGBUS) or fail to import
        return plan.so_path
    cc, flags, so_path = plan.cc, plan.flags, plan.so_path
    c_path = cache.write_text_atomic(so_path.with_suffix(".c"), plan.text)
    nice = shutil.which("nice") if background else None
    prefix = (nice, "-n", "19") if nice else ()
    pch = prelude.include_flags(cc, compiler_identity(cc), compile_flags(flags), plan.text)
    units = _units(parts.parts_of(plan.text))
    if units:
        cache.write_checked(so_path, lambda tmp: _compile_units(cc, flags, c_path, tmp, prefix, units, pch, plan.libraries))
    else:
        inputs = (str(c_path), *plan.libraries, "-lm")
        cache.write_checked(so_path, lambda tmp: _run_compiler(cc, flags, c_path, tmp, prefix, inputs, pch=pch))
    return so_path


def _runtime_path(name: str) -> Path:
    return shared_object_path(shared_runtime.library_source(name), opt_flags=RUNTIME_FLAGS)


def runtime_library(name: str, *, wait: bool = False) -> Path | None:
    """The library of runtime helper ``name`` (backends/c/shared_runtime.py) when it is in the cache;
    else None, its build (once per machine: gemm 1.3-1.4 s of gcc, gemv 0.2 s; lowest CPU priority) started in the
    background, and with ``wait`` waited for. Kernels compiled meanwhile, or where it cannot be built
    (a warning, once per process), have the runtime compiled in, as their source has it: the same code."""
    path = _runtime_path(name)
    if cache.is_checked(path):
        return path
    with _runtime_lock:
        if path in _runtime_failures:
            return None
        builder = _runtime_builders.get(path)
        if builder is None or not builder.is_alive():
            builder = _runtime_builders[path] = threading.Thread(target=_build_runtime, args=(name, path), daemon=True)
            builder.start()
            atexit.register(builder.join)
    if not wait:
        return None
    builder.join()
    return path if cache.is_checked(path) else None


def _build_runtime(name: str, path: Path) -> None:
    try:
        compile_shared(shared_runtime.library_source(name), opt_flags=RUNTIME_FLAGS, background=True)
    except (CompileError, OSError) as error:
        _runtime_failures.add(path)
        warnings.warn(f"kiln: the shared runtime {name} could not be built, so kernels calling it compile it "
                      f"into their own code (the same results, slower compiles): {error}", RuntimeWarning, stacklevel=1)


def compile_flags(flags: tuple[str, ...]) -> tuple[str, ...]:
    """``flags`` without those only the link step takes."""
    return tuple(f for f in flags if f not in _LINK_FLAGS)


def tiering() -> bool:
    """Whether first calls of large sources may run a quick build (``KILN_TIERING``, read per
    compile so that a test can set it; on unless it is ``0``)."""
    return os.environ.get(TIERING_ENV, "1") not in ("", "0")


def prefetch_prelude(isa_includes: tuple[str, ...], *, check: bool = False) -> None:
    """Start building the precompiled headers of kernels, vector code for the ISA of
    ``isa_includes`` and scalar code, with the default flags (and the quick tier's, when
    :func:`tiering`), each without and with ``-fopenmp``, when not cached (once per machine), or
    with ``check`` checking the default vector one without ``-fopenmp`` when cached (a compile is
    coming; the others are checked by the first compile that uses them): backends/c/prelude.py.

    gcc uses no header precompiled without ``-fopenmp`` in a compile with it, and 19 of NPBench's
    54 kernels at preset S are vector code with parallel loops: gemver's 27 KB took 211 ms of gcc
    CPU at -Og without a precompiled prelude and 149 ms with its own (mvt 207 -> 143; the same
    assembly; 2026-11-29, bench/RESULTS.md "First calls, sixth round")."""
    cc = compiler()
    for opt_flags in (DEFAULT_OPT_FLAGS, QUICK_OPT_FLAGS) if tiering() else (DEFAULT_OPT_FLAGS,):
        for openmp in ((), ("-fopenmp",)):
            flags = compile_flags((*opt_flags, *_SHARED_FLAGS, *openmp))
            for includes in dict.fromkeys((isa_includes, ())):  # the vector prelude, then the scalar one
                first = opt_flags == DEFAULT_OPT_FLAGS and not openmp and includes == isa_includes
                prelude.prefetch(cc, compiler_identity(cc), flags, includes, check=check and first)


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _units(found: list[str]) -> list[list[str]]:
    """The parts (backends/c/parts.py) each translation unit compiles, one unit per core at most;
    [] to compile the source whole (not cut, or one core)."""
    count = min(len(found) - 1, _cores())
    if count < 2:
        return []
    units: list[list[str]] = [[] for _ in range(count)]
    for i, part in enumerate(found[1:]):
        units[i % count].append(part)
    units[0].insert(0, found[0])  # the main part: the public functions calling the others, small
    return units


def _compile_units(
    cc: str, flags: tuple[str, ...], c_path: Path, out: Path, prefix: tuple[str, ...], units: list[list[str]],
    pch: tuple[str, ...] = (), libraries: tuple[str, ...] = (),
) -> None:
    """Compile the units of a source cut into parts in parallel, then link them (and ``libraries``)
    into ``out``."""
    objects = [out.with_name(f"{out.name}.{i}.o") for i in range(len(units))]
    try:
        with ThreadPoolExecutor(len(units)) as pool:
            done = [
                pool.submit(_run_compiler, cc, (*compile_flags(flags), "-c", *parts.defines(unit)), c_path, obj, prefix,
                            (str(c_path),), pch)
                for unit, obj in zip(units, objects)
            ]
            for future in done:
                future.result()
        _run_compiler(cc, flags, c_path, out, prefix, (*map(str, objects), *libraries, "-lm"))
    finally:
        for obj in objects:
            obj.unlink(missing_ok=True)


class CompilerBugWarning(RuntimeWarning):
    """The C compiler crashed on kiln's code and it was compiled again without the failing
    optimization: the same results, possibly slower."""


#: what is left out when the compiler crashes (gcc 12's vectorizer: "internal compiler error in
#: vect_slp_analyze_node_operations_1" on some generated loops with -march=native on AVX-512)
#: (both flags: gcc's later -fno-tree-vectorize does not undo the explicit -ftree-loop-vectorize)
_AFTER_COMPILER_BUG = ("-fno-tree-vectorize", "-fno-tree-loop-vectorize")


def _run_compiler(
    cc: str, flags: tuple[str, ...], c_path: Path, out: Path, prefix: tuple[str, ...] = (),
    inputs: tuple[str, ...] | None = None, pch: tuple[str, ...] = (),
) -> None:
    """Run the compiler on ``inputs`` (default: ``c_path`` and libm) into ``out``, with the
    precompiled prelude ``pch`` (``-include`` flags); errors name ``c_path``."""
    inputs = inputs if inputs is not None else (str(c_path), "-lm")
    cmd = [*prefix, cc, *flags, *pch, "-o", str(out), *inputs]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0 and "internal compiler error" in proc.stderr:
        first = proc.stderr.strip().splitlines()
        bug = next((line for line in first if "internal compiler error" in line), first[-1] if first else "")
        cmd = [*prefix, cc, *flags, *_AFTER_COMPILER_BUG, *pch, "-o", str(out), *inputs]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode == 0:
            warnings.warn(
                f"kiln: the C compiler crashed on {c_path} ({bug.strip()}); compiled again with "
                f"{' '.join(_AFTER_COMPILER_BUG)}: same results, its loops not auto-vectorized by the compiler",
                CompilerBugWarning,
                stacklevel=2,
            )
    if proc.returncode != 0:
        raise CompileError(
            f"C compilation failed (exit {proc.returncode}); source kept at {c_path}\n"
            f"command: {' '.join(cmd)}\n{proc.stderr.strip()}"
        )
