"""Kernels with products call the GEMM/GEMV runtime built once per machine (backends/c/shared_runtime.py),
or, where it cannot be built, compile it in: the same answers either way."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import kiln
from kiln.backends.c import shared_runtime, toolchain

_RUNTIMES = ("kiln_gemm_f64", "kiln_gemv_f64")
#: (m, k, n): a packed product (rows) and matrix-vector products threaded by the runtime's steps
_LARGE = ((300, 250, 50), (260, 300, 20))
#: ... a skinny product (3 rows), a small one (no packing), matrix-vector products of static sizes
_SMALL = ((3, 90, 50), (8, 8, 8))


def _products(a, b, x, y):
    return (a @ b) * 2.0 + 1.0, a @ x, y @ a


def _run(shapes: tuple[tuple[int, int, int], ...]) -> list[tuple[np.ndarray, ...]]:
    """The products of each of ``shapes`` by a new kiln.function (nothing of it in memory), checked
    against NumPy on the same inputs."""
    products = kiln.function(_products)
    results = []
    for m, k, n in shapes:
        rng = np.random.default_rng(m * k * n)
        args = rng.standard_normal((m, k)), rng.standard_normal((k, n)), rng.standard_normal(k), rng.standard_normal(m)
        results.append(products(*args))
        for got, want in zip(results[-1], _products(*args)):
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12 * np.abs(want).max())
    return results


def _built(cache: Path, call: str) -> list[str]:
    """The C the kernels calling ``call`` were compiled from (the cache's ``<key>.c``)."""
    return [text for text in (c.read_text() for c in cache.glob("*.c")) if "kiln_packed_" in text and call in text]


def _mapped(path: Path) -> bool:
    return str(path) in Path("/proc/self/maps").read_text()


def test_a_kernel_with_products_links_the_shared_runtime(fresh_kiln_cache: Path) -> None:
    """Once the runtime's libraries are built, a kernel with large products calls them: its build has
    declarations, not the runtime's 40 KB, and the libraries are loaded with it."""
    libraries = [toolchain.runtime_library(name, wait=True) for name in _RUNTIMES]
    assert all(path is not None and path.parent == fresh_kiln_cache and not _mapped(path) for path in libraries)
    _run(_LARGE)
    assert all(path is not None and _mapped(path) for path in libraries)
    built = _built(fresh_kiln_cache, "kiln_gemm_f64_rows(")
    assert len(built) == len(_LARGE)
    assert all(shared_runtime.used(text) == () and "KILN_API" not in text and "kiln_gemv_f64_step(" in text
               for text in built)


def test_products_of_static_small_sizes_keep_the_runtime_compiled_in(fresh_kiln_cache: Path) -> None:
    """The runtime's small paths, which gcc specializes for a kernel's static sizes, stay in the kernel."""
    for name in _RUNTIMES:
        assert toolchain.runtime_library(name, wait=True) is not None
    _run(_SMALL)
    built = _built(fresh_kiln_cache, "kiln_gemv_f64_part(0, ")
    assert len(built) == len(_SMALL)
    assert all(shared_runtime.DEFINITIONS[name] in text for name in _RUNTIMES for text in built)


def test_kernels_compile_the_runtime_in_when_it_cannot_be_built(
    fresh_kiln_cache: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A runtime library that fails to build is reported once, and kernels compile the runtime in:
    bit for bit the answers of the kernels that call the library."""
    for name in _RUNTIMES:
        assert toolchain.runtime_library(name, wait=True) is not None
    shared = _run(_LARGE)

    unbuildable = tmp_path / "unbuildable"
    monkeypatch.setenv("KILN_CACHE_DIR", str(unbuildable))
    source = shared_runtime.library_source
    monkeypatch.setattr(shared_runtime, "library_source", lambda name: source(name) + "\n#error not on this machine\n")
    for name in _RUNTIMES:
        with pytest.warns(RuntimeWarning, match=f"shared runtime {name} could not be built"):
            assert toolchain.runtime_library(name, wait=True) is None
    for compiled_in, called in zip(_run(_LARGE), shared):
        for got, want in zip(compiled_in, called):
            np.testing.assert_array_equal(got, want)
    built = _built(unbuildable, "kiln_gemm_f64_rows(")
    assert len(built) == len(_LARGE) and all(set(shared_runtime.used(text)) == set(_RUNTIMES) for text in built)
