"""A call whose compiled code is in the disk cache (issue 39's warm start) does only what it must:
the traced IR is verified before it is lowered, not on every trace, and still refused, naming
the function, when it does not verify; and it never runs stale code: a changed source, a changed
global the function reads, another kiln each compile again and give NumPy's answer."""

from __future__ import annotations

import types
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import FunctionType, ModuleOp

import kiln
from kiln.frontend import plan_cache
from kiln.frontend.autograph import code_cache
from kiln.frontend.concrete import ConcreteFunction, KilnCompileError


def affine(x: np.ndarray) -> np.ndarray:
    return x * 2.0 + 1.0


@pytest.fixture
def lowered(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the functions lowered (not found in the plan cache), in order."""
    names: list[str] = []
    lower = ConcreteFunction._lower_all

    def counting(self: ConcreteFunction, *args: object, **kwargs: object) -> None:
        names.append(self.name)
        lower(self, *args, **kwargs)

    monkeypatch.setattr(ConcreteFunction, "_lower_all", counting)
    return names


_BY_GLOBAL = """
SCALE = 2.0

def by_global(x):
    if x.sum() > 0:
        return x * SCALE
    return x - SCALE
"""


def test_a_warm_start_never_runs_stale_code(tmp_path: Path, fresh_kiln_cache: Path, lowered: list[str],
                                            new_module: Callable[[Path, str], types.ModuleType],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    x = np.linspace(-1.0, 3.0, 8)

    def new_process(source: str, scale: float | None = None) -> None:
        module = new_module(tmp_path / "by_global.py", source)
        if scale is not None:
            module.SCALE = scale
        np.testing.assert_allclose(kiln.function(module.by_global)(x), module.by_global(x))

    new_process(_BY_GLOBAL)
    new_process(_BY_GLOBAL)  # warm: nothing lowered
    assert lowered == ["by_global"]
    new_process(_BY_GLOBAL, scale=5.0)  # a changed global: x * 5
    assert len(lowered) == 2
    new_process(_BY_GLOBAL.replace("x * SCALE", "x / SCALE"))  # a changed source
    assert len(lowered) == 3
    for module in (plan_cache, code_cache):  # another kiln (its code's fingerprint)
        monkeypatch.setattr(module, "compiler_fingerprint", lambda: "another kiln's code")
    new_process(_BY_GLOBAL)
    assert len(lowered) == 4


def test_a_warm_start_does_not_verify_the_traced_ir(fresh_kiln_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    x = np.linspace(-1.0, 1.0, 16, dtype=np.float32)
    np.testing.assert_allclose(kiln.function(affine)(x), affine(x))  # cold: traced, verified, lowered, kept
    verified: list[ModuleOp] = []
    verify = ModuleOp.verify

    def counting(self: ModuleOp, *args: object, **kwargs: object) -> None:
        verified.append(self)
        verify(self, *args, **kwargs)

    monkeypatch.setattr(ModuleOp, "verify", counting)
    warm = kiln.function(affine)  # a new function: traced again, its IR's plan found
    np.testing.assert_allclose(warm(x), affine(x))
    assert warm.tracing_count == 1
    assert verified == []


def test_a_call_from_another_line_finds_the_plan(fresh_kiln_cache: Path, lowered: list[str]) -> None:
    """The ops traced after the function returned (its results, the return) are located at its
    definition, not at the caller's line: the IR, and the plan cache's key, are the same from
    every call site (they were not: a script edited above its call lowered it again)."""
    x = np.linspace(-1.0, 1.0, 16, dtype=np.float32)
    first = kiln.function(affine)(x)
    second = kiln.function(affine)(x)  # another line, another function: the same IR
    np.testing.assert_allclose(first, affine(x))
    np.testing.assert_allclose(second, affine(x))
    assert lowered == ["affine"]


def scaled(x: np.ndarray) -> np.ndarray:
    return x * 3.0


def test_traced_ir_that_does_not_verify_is_refused_before_lowering(fresh_kiln_cache: Path) -> None:
    x = np.linspace(-1.0, 1.0, 16, dtype=np.float32)
    concrete = kiln.function(scaled).get_concrete_function(x)
    traced = concrete.traced.func_op
    traced.function_type = FunctionType.from_lists(traced.function_type.inputs.data, [])  # its return returns one
    with pytest.raises(KilnCompileError, match=r"traced IR of scaled does not verify"):
        concrete.source
