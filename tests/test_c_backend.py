"""The C backend end to end: hand-written upstream IR → C → cc → run, from C and from NumPy."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects import arith, builtin, func, math, memref, scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser

from kiln.backends import cache
from kiln.backends.c import toolchain
from kiln.backends.c.emitter import emit_c
from kiln.backends.c.errors import CEmitError
from kiln.backends.c.toolchain import CompileError, compile_shared
from kiln.backends.loader import load_function, signature_of


def parse(text: str) -> ModuleOp:
    ctx = Context()
    for dialect in (builtin.Builtin, func.Func, arith.Arith, math.Math, scf.Scf, memref.MemRef):
        ctx.load_dialect(dialect)
    return Parser(ctx, text).parse_module()


def build(text: str):
    """Emit, compile and load every public function of a module: name → Python callable."""
    module = parse(text)
    so = compile_shared(emit_c(module))
    return {
        op.sym_name.data: load_function(so, op.sym_name.data, signature_of(op))
        for op in module.ops
        if isinstance(op, func.FuncOp) and op.body.blocks and op.sym_visibility is None
    }


@pytest.fixture(autouse=True)
def kiln_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "cache"
    monkeypatch.setenv("KILN_CACHE_DIR", str(path))
    return path


# --- from C: the "hand-written IR compiles with cc and computes right values" ---------

SCALARS = """
func.func @axpy(%a: f32, %x: f32, %y: f32) -> f32 {
  %m = arith.mulf %a, %x : f32
  %r = arith.addf %m, %y : f32
  func.return %r : f32
}
func.func @floordiv(%a: i64, %b: i64) -> i64 {
  %q = arith.floordivsi %a, %b : i64
  func.return %q : i64
}
func.func @remsi(%a: i64, %b: i64) -> i64 {
  %q = arith.remsi %a, %b : i64
  func.return %q : i64
}
func.func @nan_cmp(%a: f64, %b: f64) -> i32 {
  %o = arith.cmpf olt, %a, %b : f64
  %u = arith.cmpf ult, %a, %b : f64
  %oi = arith.extui %o : i1 to i32
  %ui = arith.extui %u : i1 to i32
  %c2 = arith.constant 2 : i32
  %s = arith.muli %ui, %c2 : i32
  %r = arith.addi %oi, %s : i32
  func.return %r : i32
}
func.func @fill_sum(%buf: memref<?xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f64
  %n = memref.dim %buf, %c0 : memref<?xf64>
  scf.for %i = %c0 to %n step %c1 {
    %ii = arith.index_cast %i : index to i64
    %f = arith.sitofp %ii : i64 to f64
    memref.store %f, %buf[%i] : memref<?xf64>
  }
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (f64) {
    %v = memref.load %buf[%i] : memref<?xf64>
    %a = arith.addf %acc, %v : f64
    scf.yield %a : f64
  }
  func.return %s : f64
}
"""

MAIN = r"""
#include <math.h>
#include <stdint.h>
#include <stdio.h>
float axpy(float, float, float);
int64_t floordiv(int64_t, int64_t);
int64_t remsi(int64_t, int64_t);
int32_t nan_cmp(double, double);
double fill_sum(double *, int64_t);
int main(void) {
  double buf[10];
  printf("%g\n", axpy(2.0f, 3.0f, 1.0f));
  printf("%lld %lld %lld\n", (long long)floordiv(-7, 2), (long long)floordiv(7, -2), (long long)floordiv(6, 3));
  printf("%lld %lld\n", (long long)remsi(-7, 2), (long long)remsi(7, -2));
  printf("%d %d\n", nan_cmp(1.0, 2.0), nan_cmp(NAN, 2.0));
  printf("%g\n", fill_sum(buf, 10));
  return 0;
}
"""


def test_hand_written_ir_runs_from_c(tmp_path: Path) -> None:
    lib = tmp_path / "lib.c"
    lib.write_text(emit_c(parse(SCALARS)))
    main = tmp_path / "main.c"
    main.write_text(MAIN)
    exe = tmp_path / "a.out"
    subprocess.run(
        ["cc", "-O2", "-fwrapv", "-Wall", "-Werror", str(lib), str(main), "-o", str(exe), "-lm"],
        check=True,
    )
    out = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.split("\n")
    assert out[:5] == ["7", "-4 -4 2", "-1 1", "3 2", "45"]


def test_kiln_opt_target_c(tmp_path: Path) -> None:
    src = tmp_path / "f.mlir"
    src.write_text(SCALARS)
    out = subprocess.run(
        [sys.executable, "-m", "kiln.tools.kiln_opt", str(src), "-t", "c"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "float axpy(float a, float x, float y)" in out


# --- from NumPy through compile_shared + the loader ------------------------------------------

KERNELS = """
func.func @add(%x: memref<64xf32>, %y: memref<64xf32>, %out: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 64 : index
  scf.for %i = %c0 to %n step %c1 {
    %a = memref.load %x[%i] : memref<64xf32>
    %b = memref.load %y[%i] : memref<64xf32>
    %e = math.exp %a : f32
    %s = arith.addf %e, %b : f32
    memref.store %s, %out[%i] : memref<64xf32>
  }
  func.return
}
func.func @total(%x: memref<?xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f64
  %n = memref.dim %x, %c0 : memref<?xf64>
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (f64) {
    %v = memref.load %x[%i] : memref<?xf64>
    %a = arith.addf %acc, %v : f64
    scf.yield %a : f64
  }
  func.return %s : f64
}
func.func @matmul(%a: memref<?x?xf64>, %b: memref<?x?xf64>, %c: memref<?x?xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f64
  %m = memref.dim %a, %c0 : memref<?x?xf64>
  %k = memref.dim %a, %c1 : memref<?x?xf64>
  %n = memref.dim %b, %c1 : memref<?x?xf64>
  scf.for %i = %c0 to %m step %c1 {
    scf.for %j = %c0 to %n step %c1 {
      %s = scf.for %p = %c0 to %k step %c1 iter_args(%acc = %z) -> (f64) {
        %x = memref.load %a[%i, %p] : memref<?x?xf64>
        %y = memref.load %b[%p, %j] : memref<?x?xf64>
        %t = arith.mulf %x, %y : f64
        %u = arith.addf %acc, %t : f64
        scf.yield %u : f64
      }
      memref.store %s, %c[%i, %j] : memref<?x?xf64>
    }
  }
  func.return
}
func.func @count_halvings(%x: i64) -> (i64, i64) {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %r:2 = scf.while (%v = %x, %n = %c0) : (i64, i64) -> (i64, i64) {
    %go = arith.cmpi sgt, %v, %c1 : i64
    scf.condition(%go) %v, %n : i64, i64
  } do {
  ^bb0(%v2: i64, %n2: i64):
    %h = arith.shrsi %v2, %c1 : i64
    %n3 = arith.addi %n2, %c1 : i64
    scf.yield %h, %n3 : i64, i64
  }
  func.return %r#1, %r#0 : i64, i64
}
"""


@pytest.fixture(scope="module")
def kernels(tmp_path_factory: pytest.TempPathFactory):
    import os

    old = os.environ.get("KILN_CACHE_DIR")
    os.environ["KILN_CACHE_DIR"] = str(tmp_path_factory.mktemp("kcache"))
    try:
        return build(KERNELS)
    finally:
        if old is None:
            del os.environ["KILN_CACHE_DIR"]
        else:
            os.environ["KILN_CACHE_DIR"] = old


def test_elementwise(kernels) -> None:
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal(64, dtype=np.float32), rng.standard_normal(64, dtype=np.float32)
    out = np.empty(64, np.float32)
    kernels["add"](x, y, out)
    np.testing.assert_allclose(out, np.exp(x) + y, rtol=1e-6, atol=1e-6)


def test_reduction_dynamic_shape(kernels) -> None:
    for n in (0, 1, 1000):
        x = np.arange(n, dtype=np.float64)
        assert kernels["total"](x) == float(np.add.accumulate(x)[-1] if n else 0.0)


def test_matmul(kernels) -> None:
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((5, 7)), rng.standard_normal((7, 3))
    c = np.empty((5, 3))
    kernels["matmul"](a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-12)


def test_while_and_two_results(kernels) -> None:
    assert kernels["count_halvings"](1024) == (10, 1)
    assert kernels["count_halvings"](np.int64(1)) == (0, 1)


def test_wrong_arrays_raise_type_error(kernels) -> None:
    good = np.zeros(64, np.float32)
    with pytest.raises(TypeError, match="dtype"):
        kernels["add"](np.zeros(64, np.float64), good, good)
    with pytest.raises(TypeError, match="contiguous"):
        kernels["add"](np.zeros(128, np.float32)[::2], good, good)
    with pytest.raises(TypeError, match="shape"):
        kernels["add"](np.zeros(63, np.float32), good, good)
    with pytest.raises(TypeError, match="numpy array"):
        kernels["add"]([0.0] * 64, good, good)
    with pytest.raises(TypeError, match="argument"):
        kernels["total"]()


# --- cache and toolchain ----------------------------------------------------------------------

TINY = '__attribute__((visibility("default"))) int answer(void) { return 42; }\n'


def test_cache_hit_runs_no_compiler(kiln_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = compile_shared(TINY)
    assert first.parent == kiln_cache and first.suffix == ".so"
    assert first.with_suffix(".c").read_text() == TINY

    def no_compiler(*args, **kwargs):
        raise AssertionError("compiler ran on a cache hit")

    monkeypatch.setattr(toolchain, "_run_compiler", no_compiler)
    assert compile_shared(TINY) == first
    assert cache.cache_dir() == kiln_cache


def test_flags_change_the_key() -> None:
    assert compile_shared(TINY) != compile_shared(TINY, opt_flags=("-O1",))


def test_default_cache_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("KILN_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.cache_dir() == tmp_path / "xdg" / "kiln"


def test_concurrent_compiles(kiln_cache: Path) -> None:
    """Two processes compiling the same new source at once both succeed and agree."""
    source = TINY.replace("42", "43")
    script = textwrap.dedent(
        f"""
        import ctypes
        from kiln.backends.c.toolchain import compile_shared
        so = compile_shared({source!r})
        print(so, ctypes.CDLL(str(so)).answer())
        """
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
        for _ in range(3)
    ]
    outs = [p.communicate()[0].split() for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert len({o[0] for o in outs}) == 1 and all(o[1] == "43" for o in outs)
    assert not list(kiln_cache.glob("*.tmp"))


def _kernel_source(fn: Callable[[np.ndarray], np.ndarray], x: np.ndarray) -> str:
    import kiln

    return kiln.function(fn, autograph=False).get_concrete_function(x).source


def _assembly(source: str, tmp_path: Path, extra: tuple[str, ...] = ()) -> str:
    c_file, s_file = tmp_path / "k.c", tmp_path / "k.s"
    c_file.write_text(source)
    flags = toolchain.compile_flags((*toolchain.DEFAULT_OPT_FLAGS, *toolchain._SHARED_FLAGS))
    subprocess.run([toolchain.compiler(), *flags, *extra, "-S", "-o", str(s_file), str(c_file)], check=True)
    return s_file.read_text()


def test_precompiled_prelude_compiles_the_same_code(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A vector kernel compiles with its prelude's precompiled header (once it is built) to the
    assembly it compiles to without it."""
    from kiln.backends.c import prelude
    from kiln.backends.c.isa import resolve_isa, table

    source = _kernel_source(lambda x: np.tanh(x @ x + 1.0).sum(axis=0), np.ones((16, 16), np.float32))
    text = prelude.of(source)
    assert text is not None and "intrin.h" in text
    cc = toolchain.compiler()
    flags = toolchain.compile_flags((*toolchain.DEFAULT_OPT_FLAGS, *toolchain._SHARED_FLAGS))
    assert prelude.include_flags(cc, toolchain.compiler_identity(cc), flags, source) == ()  # not built here yet
    toolchain.prefetch_prelude(table(resolve_isa()).includes)
    prelude.wait()
    pch = prelude.include_flags(cc, toolchain.compiler_identity(cc), flags, source)
    assert pch[0] == "-include" and Path(pch[1] + ".gch").is_file()
    assert _assembly(source, tmp_path, (*pch, "-Winvalid-pch", "-Werror")) == _assembly(source, tmp_path)

    used: list[tuple[str, ...]] = []
    run = toolchain._run_compiler
    toolchain.runtime_library("kiln_gemm_f32", wait=True)  # (built here: not a compile of its own below)
    monkeypatch.setattr(toolchain, "_run_compiler", lambda *a, **k: (used.append(k["pch"]), run(*a, **k))[1])
    compile_shared(source)
    assert used == [pch]


def test_damaged_precompiled_header_is_not_used(kiln_cache: Path) -> None:
    """A damaged precompiled header (gcc crashed on one) is set aside with a warning, the source
    compiles without it, and it is built again."""
    from kiln.backends.c import prelude
    from kiln.backends.c.isa import resolve_isa, table

    source = _kernel_source(lambda x: x * 2.0 + 1.0, np.ones(64, np.float32))
    toolchain.prefetch_prelude(table(resolve_isa()).includes)
    prelude.wait()
    gch = _header().with_suffix(".h.gch")
    assert gch.with_suffix("").read_text() == prelude.of(source)
    gch.write_bytes(gch.read_bytes()[: gch.stat().st_size // 2])
    cc = toolchain.compiler()
    flags = toolchain.compile_flags((*toolchain.DEFAULT_OPT_FLAGS, *toolchain._SHARED_FLAGS))
    prelude._sound.clear()  # as a new process finds it
    with pytest.warns(cache.CacheWarning, match="is damaged"):
        assert prelude.include_flags(cc, toolchain.compiler_identity(cc), flags, source) == ()
    assert compile_shared(source).is_file()
    prelude.wait()
    assert prelude.include_flags(cc, toolchain.compiler_identity(cc), flags, source)[0] == "-include"


def _header(openmp: bool = False, scalar: bool = False) -> Path:
    """The path of the vector (``scalar``: scalar) code's precompiled prelude for the default
    flags (with ``-fopenmp``)."""
    from kiln.backends.c import prelude
    from kiln.backends.c.isa import resolve_isa, table

    cc = toolchain.compiler()
    flags = toolchain.compile_flags((*toolchain.DEFAULT_OPT_FLAGS, *toolchain._SHARED_FLAGS,
                                     *(("-fopenmp",) if openmp else ())))
    text = "\n".join(prelude.lines(() if scalar else table(resolve_isa()).includes)) + "\n"
    return prelude._header(text, toolchain.compiler_identity(cc), flags)


def _built_header(kiln_cache: Path) -> tuple[Path, tuple[str, ...]]:
    """The vector code's precompiled header (default flags, no OpenMP), built in ``kiln_cache``,
    and its include flags' inputs."""
    from kiln.backends.c import prelude
    from kiln.backends.c.isa import resolve_isa, table

    toolchain.prefetch_prelude(table(resolve_isa()).includes)
    prelude.wait()
    gch = _header().with_suffix(".h.gch")
    assert gch.parent == kiln_cache and gch.is_file()
    return gch, table(resolve_isa()).includes


def test_unchanged_precompiled_header_is_trusted_unread(kiln_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A precompiled header checked once (its sha256, ~25 ms for 20 MB; by the first process after
    its build) is not read again by a later process while its stat is unchanged: it is used all the same."""
    from kiln.backends.c import prelude

    gch, includes = _built_header(kiln_cache)
    assert not Path(f"{gch}.checked").exists()  # its build trusts what it wrote: the next check reads it
    prelude._sound.clear()  # as a new process finds it
    reads: list[Path] = []
    check = cache._read_checked
    monkeypatch.setattr(cache, "_read_checked", lambda path: (reads.append(path), check(path))[1])
    toolchain.prefetch_prelude(includes, check=True)
    prelude.wait()
    assert reads == [gch] and gch.with_suffix("") in prelude._sound
    for _ in range(2):  # later processes
        prelude._sound.clear()
        prelude._checks.clear()
        toolchain.prefetch_prelude(includes, check=True)
        prelude.wait()
        assert gch.with_suffix("") in prelude._sound
    assert reads == [gch]


def test_precompiled_header_changed_since_its_check_is_read_again(kiln_cache: Path) -> None:
    """A precompiled header rewritten after its check, even with the same size and its
    modification time set back, is read again, found damaged (warned), not used, and rebuilt."""
    from kiln.backends.c import prelude

    gch, includes = _built_header(kiln_cache)
    source = _kernel_source(lambda x: x * 2.0 + 1.0, np.ones(64, np.float32))
    cc = toolchain.compiler()
    flags = toolchain.compile_flags((*toolchain.DEFAULT_OPT_FLAGS, *toolchain._SHARED_FLAGS))
    prelude._sound.clear()
    assert prelude.include_flags(cc, toolchain.compiler_identity(cc), flags, source)[0] == "-include"
    assert Path(f"{gch}.checked").is_file()
    before = gch.stat()
    data = bytearray(gch.read_bytes())
    data[len(data) // 2] ^= 0xFF
    gch.write_bytes(bytes(data))
    os.utime(gch, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert gch.stat().st_size == before.st_size and gch.stat().st_mtime_ns == before.st_mtime_ns
    prelude._sound.clear()  # as a new process finds it
    with pytest.warns(cache.CacheWarning, match="is damaged"):
        assert prelude.include_flags(cc, toolchain.compiler_identity(cc), flags, source) == ()
    prelude.wait()
    assert prelude.include_flags(cc, toolchain.compiler_identity(cc), flags, source)[0] == "-include"
    assert cache.is_checked(gch)


def test_precompiled_headers_are_checked_only_when_a_compile_comes(kiln_cache: Path) -> None:
    """A process that only finds its functions in the cache reads no precompiled header (20 MB
    each); one that lowers a function checks them in the background meanwhile."""
    from kiln.backends.c import prelude
    from kiln.backends.c.isa import resolve_isa, table

    includes = table(resolve_isa()).includes
    toolchain.prefetch_prelude(includes)
    prelude.wait()
    headers = {p.with_suffix("") for p in kiln_cache.glob("*.h.gch")}
    # the vector and the scalar code's, each without and with OpenMP
    assert headers == {_header(openmp=o, scalar=s) for o in (False, True) for s in (False, True)}
    prelude._sound.difference_update(headers)  # as a new process finds them
    toolchain.prefetch_prelude(includes)  # a backend created: builds only what is missing
    assert not headers & set(prelude._checks)
    toolchain.prefetch_prelude(includes, check=True)  # a compile is coming: the default one is
    assert set(prelude._checks) & headers == {_header()}  # checked meanwhile, the OpenMP one when used
    prelude.wait()
    assert _header() in prelude._sound


def test_openmp_vector_code_has_a_precompiled_prelude_of_its_own(kiln_cache: Path, tmp_path: Path) -> None:
    """Vector code with parallel loops compiles with ``-fopenmp``, which uses no header
    precompiled without it: the once-per-machine build makes one with it, and the source compiles
    with it to the assembly it compiles to without it."""
    from kiln.backends.c import prelude
    from kiln.backends.c.isa import resolve_isa, table

    source = _kernel_source(lambda m: m.sum(axis=1), np.ones((1000, 517), np.float32))
    assert "#pragma omp parallel for" in source and prelude.is_vector(source)
    toolchain.prefetch_prelude(table(resolve_isa()).includes)
    prelude.wait()
    cc = toolchain.compiler()
    flags = toolchain.compile_flags((*toolchain.DEFAULT_OPT_FLAGS, *toolchain._SHARED_FLAGS, "-fopenmp"))
    pch = prelude.include_flags(cc, toolchain.compiler_identity(cc), flags, source)
    assert pch == ("-include", str(_header(openmp=True)))
    check = ("-Winvalid-pch", "-Werror")
    assert _assembly(source, tmp_path, ("-fopenmp", *pch, *check)) == _assembly(source, tmp_path, ("-fopenmp",))


def test_scalar_code_has_a_precompiled_prelude(kiln_cache: Path, tmp_path: Path) -> None:
    """Scalar code (no SIMD includes) compiles with the precompiled header of its prelude, the C
    library's headers, made by the once-per-machine build, to the assembly it compiles to without it."""
    from kiln.backends.c import prelude
    from kiln.backends.c.isa import resolve_isa, table

    source = _kernel_source(lambda x: np.maximum(x * 2 + 1, 0), np.arange(3))
    assert prelude.of(source) is not None and not prelude.is_vector(source)
    toolchain.prefetch_prelude(table(resolve_isa()).includes)
    prelude.wait()
    cc = toolchain.compiler()
    flags = toolchain.compile_flags((*toolchain.DEFAULT_OPT_FLAGS, *toolchain._SHARED_FLAGS))
    pch = prelude.include_flags(cc, toolchain.compiler_identity(cc), flags, source)
    assert pch == ("-include", str(_header(scalar=True)))
    assert _header(scalar=True).read_text() == prelude.of(source)
    assert _assembly(source, tmp_path, (*pch, "-Winvalid-pch", "-Werror")) == _assembly(source, tmp_path)


def test_compiler_identity_is_kept_per_binary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``cc --version`` runs once per compiler binary, not once per process; a changed binary is asked again."""
    runs = tmp_path / "runs"
    fake = tmp_path / "fakecc"
    fake.write_text(f"#!/bin/sh\necho run >> {runs}\necho 'fakecc 1.0'\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}:{os.environ['PATH']}")
    identity = toolchain.compiler_identity.__wrapped__  # past the per-process cache
    assert identity("fakecc") == identity("fakecc") == "fakecc 1.0"
    assert runs.read_text().count("run") == 1
    fake.write_text(fake.read_text().replace("1.0", "2.0"))
    assert identity("fakecc") == "fakecc 2.0"
    assert runs.read_text().count("run") == 2


def test_reserved_names_cover_the_libm_calls() -> None:
    """Tracing names functions with kiln.backends.c.names, without the emitter: every libm name
    the emitter calls must be reserved there."""
    from kiln.backends.c import names, scalar_ops

    assert scalar_ops.LIBM_NAMES <= names.LIBC_NAMES


def test_compile_error_shows_stderr_and_source() -> None:
    with pytest.raises(CompileError) as info:
        compile_shared("int broken(void) { return nope; }\n")
    message = str(info.value)
    assert "nope" in message and ".c" in message
    kept = Path(message.split("source kept at ")[1].split("\n")[0])
    assert kept.read_text().startswith("int broken")


def test_memref_result_is_rejected() -> None:
    text = "func.func @g(%a: memref<4xf32>) -> memref<4xf32> {\n  func.return %a : memref<4xf32>\n}"
    with pytest.raises(CEmitError, match="returns a memref"):
        emit_c(parse(text))


#: gcc 12.2 at -O3 moved the loads of the first loop after the stores of the second (kiln.fuzz
#: 1138-171 reduced to C; backends/c/toolchain.py's flags say why kiln compiles at -O2)
_REVERSE_THEN_READ = """
void f(double *restrict a, double *restrict o) {
  double u[36];
  for (long i = 0; i < 6; i++) for (long j = 0; j < 6; j++) u[i*6+j] = a[i*6+5-j];
  for (long i = 0; i < 6; i++) for (long j = 0; j < 6; j++) a[i*6+j] = u[i*6+j];
  for (long i = 0; i < 6; i++) for (long j = 0; j < 6; j++) o[i*6+j] = a[i*6+5-j] + a[i*6+j];
}
"""


def test_default_flags_compile_a_reversed_copy_right() -> None:
    import ctypes

    from kiln.backends.c import toolchain

    lib = ctypes.CDLL(str(toolchain.compile_shared(_REVERSE_THEN_READ.replace("void f", '__attribute__((visibility("default"))) void f'))))
    a, out = np.arange(36.0), np.zeros(36)
    lib.f(a.ctypes.data_as(ctypes.c_void_p), out.ctypes.data_as(ctypes.c_void_p))
    rev = np.arange(36.0).reshape(6, 6)[:, ::-1]
    np.testing.assert_array_equal(a.reshape(6, 6), rev)
    np.testing.assert_array_equal(out.reshape(6, 6), rev[:, ::-1] + rev)


BIG = np.random.default_rng(3).standard_normal(9000)


def uses_big_constants(x):
    return x + BIG, x.astype(np.float32) * BIG.astype(np.float32), BIG.astype(np.int64)[:4] + 1, \
        (BIG * 100).astype(np.int16)[-5:], BIG.astype(np.float16)[:7]


def test_large_constants_are_emitted_as_bytes_and_read_back_exactly() -> None:
    """Constants of 64 KiB and more are C strings of their bytes (gcc parses them far faster than
    number literals); every dtype reads back bit for bit."""
    import kiln

    f = kiln.function(uses_big_constants)
    x = np.random.default_rng(4).standard_normal(9000)
    for got, want in zip(f(x), uses_big_constants(x)):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    assert "_blob" in f.get_concrete_function(x).source


def test_openmp_threads_spin_briefly_unless_the_user_chose() -> None:
    """Spinning OpenMP threads take the cores of a busy machine from the working thread, and
    sleeping ones cost a wake-up per parallel loop: the C backend bounds libgomp's spin
    (GOMP_SPINCOUNT=10000) unless OMP_WAIT_POLICY or GOMP_SPINCOUNT is set."""
    import os
    import subprocess
    import sys

    code = "import os, kiln.backends.c; print(os.environ.get('OMP_WAIT_POLICY'), os.environ.get('GOMP_SPINCOUNT'))"
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}

    def run(**extra: str) -> str:
        return subprocess.run([sys.executable, "-c", code], env={**env, **extra}, capture_output=True, text=True,
                              check=True).stdout.strip()

    assert run() == "None 10000"
    assert run(OMP_WAIT_POLICY="PASSIVE") == "PASSIVE None"
    assert run(GOMP_SPINCOUNT="300000") == "None 300000"


def test_a_compiler_crash_is_retried_without_its_vectorizer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """gcc 12 crashes ("internal compiler error") vectorizing some generated loops on AVX-512:
    the source is compiled again without the vectorizer, with a warning, and gives the same results."""
    from kiln.backends.c import toolchain

    fake = tmp_path / "cc"
    fake.write_text(
        "#!/bin/sh\n"
        'case " $* " in *" -fno-tree-loop-vectorize "*) exec cc "$@";; esac\n'
        'case " $* " in *" --version "*) exec cc "$@";; esac\n'
        'echo "x.c:1:1: internal compiler error: in vect_slp_analyze_node_operations_1" >&2\n'
        "exit 1\n"
    )
    fake.chmod(0o755)
    monkeypatch.setenv("CC", str(fake))
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path / "cache"))
    source = "__attribute__((visibility(\"default\"))) int kiln_twice(int x) { return 2 * x; }\n"
    with pytest.warns(toolchain.CompilerBugWarning, match="internal compiler error"):
        so = toolchain.compile_shared(source)
    import ctypes

    assert ctypes.CDLL(str(so)).kiln_twice(21) == 42


def test_error_symbol_found_as_a_whole_identifier() -> None:
    """Whether a kernel can report an error is read off its source: ``kiln_take_error`` as an
    identifier of its own, not inside another name (a user's function may be called anything)."""
    from kiln.backends.c.pyext import _mentions

    assert _mentions("x = 1;\nconst char *kiln_take_error(void) {", "kiln_take_error")
    assert _mentions("kiln_take_error", "kiln_take_error")
    assert not _mentions("void user_kiln_take_error(void); int kiln_take_errors;", "kiln_take_error")
    assert not _mentions("", "kiln_take_error")
