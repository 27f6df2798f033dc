"""Tiered builds (backends/c/tiering.py): a large source's first call runs a quick -Og build of
its C, and the -O2 build replaces it in the background; each call matches NumPy run eagerly."""

from __future__ import annotations

import contextlib
import io
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import kiln
from kiln.backends import cache
from kiln.backends.c import prelude, pyext, tiering, toolchain
from kiln.backends.c.isa import resolve_isa, table


@pytest.fixture(autouse=True)
def tiered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Tiering on for every source (tests/conftest.py turns it off), a cache of the test's own."""
    path = tmp_path / "cache"
    monkeypatch.setenv("KILN_CACHE_DIR", str(path))
    monkeypatch.setenv(toolchain.TIERING_ENV, "1")
    monkeypatch.setattr(tiering, "MIN_SOURCE", 0)
    monkeypatch.setattr(tiering, "MIN_SCALAR_SOURCE", 0)
    pyext.module()  # the entry extension: a quick build is only made for the native entry
    return path


def _kernels(cache: Path) -> dict[Path, str]:
    """The kernels' shared objects in ``cache`` and the C each was compiled from."""
    sources = {so: so.with_suffix(".c").read_text() for so in cache.glob("*.so")}
    return {so: text for so, text in sources.items() if "Python.h" not in text}


def _layer(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    return np.tanh(x @ w + 1.0).sum(axis=0)


def test_first_call_runs_the_quick_build_then_the_optimized_one(tiered: Path) -> None:
    """The first call's entry runs the -Og build; after the background build its address is the
    -O2 library's trampoline, compiled from the same C, and a new function finds that one."""
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((8, 8)).astype(np.float32), rng.standard_normal((8, 8)).astype(np.float32)
    fn = kiln.function(_layer)
    np.testing.assert_allclose(fn(x, w), _layer(x, w), rtol=1e-6)
    entry = fn._last_entry
    quick = entry.address
    (quick_so, source), = _kernels(tiered).items()
    assert quick_so == toolchain.shared_object_path(source, opt_flags=toolchain.QUICK_OPT_FLAGS)
    tiering.wait()
    optimized = toolchain.shared_object_path(source)
    assert _kernels(tiered) == {quick_so: source, optimized: source}
    assert entry.address != quick
    assert entry.address == pyext.module().symbol(str(optimized), pyext.trampoline_name("kiln_user__layer"))
    np.testing.assert_allclose(fn(x, w), _layer(x, w), rtol=1e-6)
    again = kiln.function(_layer)  # its optimized build is cached: no quick one, nothing in the background
    np.testing.assert_allclose(again(x, w), _layer(x, w), rtol=1e-6)
    assert again._last_entry.address == entry.address and not tiering._threads


def test_tiering_off_builds_once(tiered: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``KILN_TIERING=0``: the first call runs the -O2 build, and no other is made."""
    monkeypatch.setenv(toolchain.TIERING_ENV, "0")
    x = np.arange(6.0)
    fn = kiln.function(lambda v: v * 2.0 + 1.0)
    np.testing.assert_array_equal(fn(x), x * 2.0 + 1.0)
    tiering.wait()
    (so, source), = _kernels(tiered).items()
    assert so == toolchain.shared_object_path(source)


def test_small_sources_are_built_once(tiered: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A source shorter than MIN_SOURCE: -Og would save no gcc time, so -O2 at once."""
    monkeypatch.setattr(tiering, "MIN_SOURCE", 40_000)
    x = np.arange(6.0)
    fn = kiln.function(lambda v: v - 3.0)
    np.testing.assert_array_equal(fn(x), x - 3.0)
    tiering.wait()
    (so, source), = _kernels(tiered).items()
    assert so == toolchain.shared_object_path(source)


def test_scalar_sources_have_a_threshold_of_their_own(tiered: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A source with SIMD code (a precompiled prelude for -Og) is tiered from MIN_SOURCE on, a
    scalar one (none: -Og may compile it slower) from MIN_SCALAR_SOURCE on."""
    monkeypatch.setattr(tiering, "MIN_SCALAR_SOURCE", 10**9)
    x, s = np.arange(64.0), np.float64(5.0)
    np.testing.assert_array_equal(kiln.function(lambda v: v * 2.0 + 1.0)(x), x * 2.0 + 1.0)
    np.testing.assert_array_equal(kiln.function(lambda v: v - 3.0)(s), s - 3.0)
    tiering.wait()
    built: dict[str, set[Path]] = {}
    for so, source in _kernels(tiered).items():
        built.setdefault(source, set()).add(so)
    (vector, vector_builds), = ((c, b) for c, b in built.items() if prelude.is_vector(c))
    (scalar, scalar_builds), = ((c, b) for c, b in built.items() if not prelude.is_vector(c))
    assert vector_builds == {toolchain.shared_object_path(vector, opt_flags=toolchain.QUICK_OPT_FLAGS),
                             toolchain.shared_object_path(vector)}
    assert scalar_builds == {toolchain.shared_object_path(scalar)}


@kiln.function
def _printed_twice(x):
    kiln.print("x =", x)
    return x * 2.0


def test_printing_goes_to_python_stdout_after_the_swap() -> None:
    """The optimized library's kiln.print output goes to ``sys.stdout`` as the quick one's did."""
    x = np.array([1.0, 2.0])
    for swap in (False, True):
        if swap:
            tiering.wait()
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            np.testing.assert_array_equal(_printed_twice(x), x * 2.0)
        assert out.getvalue() == "x = [1. 2.]\n"


def _square(v: np.ndarray) -> np.ndarray:
    return v * v


def _compiler_that(tmp_path: Path, optimized: str) -> str:
    """A C compiler (the usual one behind a script) that runs shell ``optimized`` before (or
    instead of) each -O2 link into a shared object: the optimized build's, not the quick one's."""
    script = tmp_path / "cc.sh"
    cc = shutil.which(toolchain.compiler())
    assert cc is not None
    script.write_text(f'#!/bin/sh\ncase " $* " in *" -O2 "*" -shared "*) {optimized};; esac\nexec {shlex.quote(cc)} "$@"\n')
    script.chmod(0o755)
    return str(script)


def test_a_failed_optimized_build_keeps_the_quick_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The optimized build (its own process) failing is warned about and raised by ``wait``,
    with the compiler's message; calls stay right."""
    monkeypatch.setenv("CC", _compiler_that(tmp_path, "echo 'no optimized build here' >&2; exit 1"))
    x = np.arange(4.0)
    fn = kiln.function(_square)
    with pytest.warns(RuntimeWarning, match="optimized build of _square failed, its calls keep the quick"):
        np.testing.assert_array_equal(fn(x), x * x)
        with pytest.raises(toolchain.CompileError, match="no optimized build here"):
            tiering.wait()
    np.testing.assert_array_equal(fn(x), x * x)


def test_the_optimized_builds_warnings_are_raised_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A warning of the optimized build's process (gcc crashing, compiled again without the
    vectorizer) is raised in this process under its own class; the swap happens."""
    crash = 'case " $* " in *" -fno-tree-vectorize "*) ;; *) echo "internal compiler error: in vect" >&2; exit 1;; esac'
    monkeypatch.setenv("CC", _compiler_that(tmp_path, crash))
    x = np.arange(4.0)
    fn = kiln.function(_square)
    np.testing.assert_array_equal(fn(x), x * x)
    quick = fn._last_entry.address
    with pytest.warns(toolchain.CompilerBugWarning, match="crashed on .*compiled again with -fno-tree-vectorize"):
        tiering.wait()
    assert fn._last_entry.address != quick
    np.testing.assert_array_equal(fn(x), x * x)


#: a script making a tiered first call (checked against NumPy), then exiting
_FIRST_CALL = """
import numpy as np
import kiln
from kiln.backends.c import tiering

def layer(x, w):
    return np.tanh(x @ w + 1.0).sum(axis=0)

tiering.MIN_SOURCE = tiering.MIN_SCALAR_SOURCE = 0
x = np.arange(64.0, dtype=np.float32).reshape(8, 8) / 64
np.testing.assert_allclose(kiln.function(layer)(x, x), layer(x, x), rtol=1e-6)
print("background builds:", len(tiering._threads))
"""


def _first_call(script: Path) -> str:
    """Run :data:`_FIRST_CALL` in a process of its own (this test's environment) and return its
    output; the time limit only stops a process that would never exit."""
    script.write_text(_FIRST_CALL)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_exit_does_not_wait_for_the_optimized_build(tiered: Path, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A process whose first call was tiered exits while its optimized build cannot finish (its
    gcc waits for a file this test makes after), and that build still lands in the cache, sound:
    the next process's first call uses it, with no quick build and nothing in the background."""
    gate = tmp_path / "gate"
    # the entry extension (a -O2 shared object too) in this test's cache first, with the usual compiler
    subprocess.run([sys.executable, "-c", "from kiln.backends.c import pyext; pyext.module()"], check=True, timeout=300)
    monkeypatch.setenv("CC", _compiler_that(tmp_path, f"while [ ! -e {shlex.quote(str(gate))} ]; do sleep 0.05; done"))
    script = tmp_path / "first_call.py"
    try:
        assert _first_call(script) == "background builds: 1\n"
        (quick_so, source), = _kernels(tiered).items()
        assert quick_so == toolchain.shared_object_path(source, opt_flags=toolchain.QUICK_OPT_FLAGS)
        optimized = toolchain.shared_object_path(source)
        assert not optimized.exists()  # the process exited before its optimized build could
    finally:
        gate.touch()  # (the detached build would wait for it forever)
    for _ in range(6000):  # (as long as a loaded machine takes, but not forever)
        if cache.is_checked(optimized):
            break
        time.sleep(0.1)
    assert cache.is_checked(optimized)
    assert _first_call(script) == "background builds: 0\n"
    assert _kernels(tiered) == {quick_so: source, optimized: source}


def _assembly(source: str, folder: Path, flags: tuple[str, ...]) -> str:
    c_file, s_file = folder / "k.c", folder / "k.s"
    c_file.write_text(source)
    subprocess.run([toolchain.compiler(), *flags, "-S", "-o", str(s_file), str(c_file)], check=True)
    return s_file.read_text()


def test_quick_builds_have_a_precompiled_prelude_of_their_own(tiered: Path, tmp_path: Path) -> None:
    """With tiering on, the once-per-machine build makes a precompiled prelude for -Og too, and a
    quick compile with it gives the assembly -Og gives without it (one built with -O2 would lend
    the compile its optimization settings: other code)."""
    x = np.ones((8, 8), np.float32)
    source = kiln.function(_layer).get_concrete_function(x, x).source
    toolchain.prefetch_prelude(table(resolve_isa()).includes)
    prelude.wait()
    assert len(list(tiered.glob("*.h.gch"))) == 8  # vector and scalar; -O2 and -Og; without and with -fopenmp
    cc = toolchain.compiler()
    flags = toolchain.compile_flags((*toolchain.QUICK_OPT_FLAGS, *toolchain._SHARED_FLAGS))
    pch = prelude.include_flags(cc, toolchain.compiler_identity(cc), flags, source)
    assert pch[0] == "-include"
    assert _assembly(source, tmp_path, (*flags, *pch, "-Winvalid-pch", "-Werror")) == _assembly(source, tmp_path, flags)
