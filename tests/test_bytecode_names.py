"""The global names a body reads, stores or deletes, read off its bytecode
(kiln.frontend.autograph.effects.global_names), are what ``dis`` names: over every function of
kiln's and NumPy's modules and code with more than 255 globals (EXTENDED_ARG)."""

from __future__ import annotations

import dis
import sys
import types

import numpy as np

import kiln
from kiln.frontend.autograph import effects

_OPS = frozenset(effects._NAME_SHIFT)  # noqa: SLF001


def _codes() -> list[types.CodeType]:
    found: list[types.CodeType] = []

    def collect(code: types.CodeType) -> None:
        found.append(code)
        for const in code.co_consts:
            if isinstance(const, types.CodeType):
                collect(const)

    for name, module in list(sys.modules.items()):
        if name.startswith(("kiln", "numpy")):
            for value in list(vars(module).values()):
                if isinstance(value, types.FunctionType):
                    collect(value.__code__)
    source = "def f():\n    global g1\n" + "".join(f"    v{i} = g{i}\n" for i in range(300)) + "    g1 = v0\n    del g1\n"
    scope: dict[str, object] = {}
    exec(compile(source, "<test>", "exec"), scope)  # noqa: S102
    collect(scope["f"].__code__)  # type: ignore[attr-defined]
    return found


def test_bytecode_names_are_what_dis_names() -> None:
    assert effects._bytecode_as_dis_reads()  # noqa: SLF001  (the fast path is the one in use here)
    codes = _codes()
    assert len(codes) > 1000
    for code in codes:
        want = [ins.argval for ins in dis.get_instructions(code) if ins.opcode in _OPS]
        assert effects.global_names(code, _OPS) == want, code


SCALE = 3.0


def _scaled_positive_sum(x: np.ndarray) -> float:
    s = 0.0
    for v in x:
        if v > 0:
            s += v * SCALE
    return s


def test_a_staged_loop_reading_a_global_matches_python() -> None:
    x = np.array([1.0, -2.0, 3.0])
    assert kiln.function(_scaled_positive_sum)(x) == _scaled_positive_sum(x)
