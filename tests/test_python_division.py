"""Python's division of Python numbers computed at run time (kiln.frontend.python_division),
against Python itself: the same value and type, or the same ``ZeroDivisionError`` and message
(with the user's line); NumPy's values keep NumPy's ``inf``; a power whose type the data decides
(a negative base to a fractional power: complex; an int to a negative int power: float) raises
``ValueError`` naming the line."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import kiln

OPERATORS: dict[str, Callable[[Any, Any], Any]] = {
    "/": lambda a, b: a / b,
    "//": lambda a, b: a // b,
    "%": lambda a, b: a % b,
    "divmod": divmod,
    "**": lambda a, b: a ** b,
}
KINDS: dict[str, Callable[[Any], Any]] = {"int": lambda v: int(v), "float": lambda v: float(v)}  # (AutoGraph converts `int(v)`)
PAIRS = [(7.0, 0.0), (-7.0, 0.0), (0.0, 0.0), (7.0, 2.0), (-7.0, 2.0), (0.0, -1.0), (2.0, -2.0), (0.0, 3.0)]


def _python(fn: Callable[..., Any], *args: Any) -> tuple[Any, BaseException | None]:
    try:
        return fn(*args), None
    except ZeroDivisionError as error:
        return None, error


def _same(got: Any, want: Any) -> bool:
    if isinstance(want, tuple):
        return type(got) is tuple and len(got) == len(want) and all(map(_same, got, want))
    return type(got) is type(want) and (got == want or (isinstance(want, float) and math.isnan(want) and math.isnan(got)))


@pytest.mark.parametrize("op", OPERATORS, ids=str)
@pytest.mark.parametrize("left,right", [(a, b) for a in KINDS for b in KINDS])
def test_python_numbers_divide_as_python(op: str, left: str, right: str) -> None:
    fn, a_of, b_of = OPERATORS[op], KINDS[left], KINDS[right]

    def f(x: np.ndarray, y: np.ndarray) -> Any:
        return fn(a_of(x[0]), b_of(y[0]))

    compiled = kiln.function(f)
    for a, b in PAIRS:
        if op == "**" and left == right == "int" and b < 0 and a != 0:
            continue  # (a float in Python: below)
        want, error = _python(fn, a_of(a), b_of(b))
        if error is not None:
            with pytest.raises(ZeroDivisionError, match=rf"test_python_division\.py:\d+.*{str(error)}"):
                compiled(np.array([a]), np.array([b]))
        else:
            got = compiled(np.array([a]), np.array([b]))
            assert _same(got, want), (op, left, right, a, b, got, want)


def test_complex_division_by_zero_raises() -> None:
    compiled = kiln.function(lambda x: (1 + 2j) / complex(float(x[0]), 0.0))
    assert compiled(np.array([2.0])) == (1 + 2j) / 2
    with pytest.raises(ZeroDivisionError, match="complex division by zero"):
        compiled(np.array([0.0]))


def test_a_python_loops_mean_of_nothing_raises() -> None:
    """``s / n`` of a sum and a count that staged loops carry: Python's error when nothing is counted."""

    def mean_of_positives(a: np.ndarray) -> float:
        s, n = 0.0, 0
        for i in range(a.shape[0]):
            if a[i] > 0:
                s += float(a[i])
                n += 1
        return s / n

    compiled = kiln.function(mean_of_positives)
    assert compiled(np.array([1.0, -2.0, 3.0])) == 2.0
    with pytest.raises(ZeroDivisionError, match="float division by zero"):
        compiled(np.array([-1.0, -2.0]))


def test_numpy_values_keep_numpys_division() -> None:
    """``a[0]`` is a NumPy float64, whose division by zero is inf, as is ``np.float64(x) / 0.0``;
    ``np.true_divide`` of Python numbers is NumPy's too."""
    compiled = kiln.function(lambda a: (a[0] / 0.0, np.float64(float(a[1])) / 0.0, np.true_divide(float(a[1]), 0.0)))
    with np.errstate(divide="ignore"):
        got = compiled(np.array([1.0, -1.0]))
    assert got == (np.inf, -np.inf, -np.inf) and all(type(g) is np.float64 for g in got)


def test_a_literal_divisor_or_exponent_is_not_checked() -> None:
    a = np.array([3.0])
    compiled = kiln.function(lambda a: (float(a[0]) / 2.0, int(a[0]) // 3, float(a[0]) % 2.5, float(a[0]) ** 2.0))
    assert compiled(a) == (1.5, 1, 0.5, 9.0)
    ir = compiled.get_concrete_function(a).ir
    assert "graph.check" in ir  # (int()'s of NaN and infinity)
    assert not any(m in ir for m in ("division by zero", "modulo", "negative power", "complex number"))


def test_a_power_whose_type_the_data_decides_raises() -> None:
    """Python's ``(-2.0) ** 0.5`` is complex and ``2 ** -1`` a float: kiln raises, naming the line,
    where the data makes them so, and gives Python's value elsewhere."""
    root = kiln.function(lambda a: float(a[0]) ** 0.5)
    assert root(np.array([4.0])) == 2.0 and type(root(np.array([4.0]))) is float
    with pytest.raises(ValueError, match=r"test_python_division\.py:\d+.*complex number in Python"):
        root(np.array([-4.0]))
    power = kiln.function(lambda a: 2 ** int(a[0]))
    assert power(np.array([3.0])) == 8 and type(power(np.array([3.0]))) is int
    with pytest.raises(ValueError, match=r"test_python_division\.py:\d+.*negative int power is a float"):
        power(np.array([-1.0]))


def test_zero_to_a_negative_power_raises() -> None:
    compiled = kiln.function(lambda a: float(a[0]) ** -1)
    assert compiled(np.array([4.0])) == 0.25
    with pytest.raises(ZeroDivisionError, match="0.0 cannot be raised to a negative power"):
        compiled(np.array([0.0]))


def test_a_number_that_is_python_s_on_some_paths_is_checked_there() -> None:
    """``c -= a[i] > 5`` makes the Python int ``c`` a NumPy int64 on the paths that step it
    (kiln.fuzz 20900-214): ``divmod(c, c)`` of zero raises where ``c`` is still Python's, and is
    NumPy's ``(0, 0)`` where it is not."""

    def f(a: np.ndarray) -> Any:
        c = 0
        for i in range(3):
            if a[i] > 0:
                c -= a[i] > 5
        return divmod(c, c)

    compiled = kiln.function(f)
    with np.errstate(divide="ignore", invalid="ignore"):
        want = f(np.array([1.0, -1.0, -1.0]))
        got = compiled(np.array([1.0, -1.0, -1.0]))
    assert got == want == (0, 0) and all(type(g) is np.int64 for g in got)
    with pytest.raises(ZeroDivisionError, match="integer division or modulo by zero"):
        compiled(np.array([-1.0, -1.0, -1.0]))


def test_a_quotient_with_a_python_complex_is_cpythons() -> None:
    """CPython divides complex numbers by Smith's method in its own order of roundings; NumPy's
    complex division differs in the last bit for about two quotients in five. A Python complex
    over a Python complex, float or int (and either way round) is Python's to the bit, and a
    NumPy complex's stays NumPy's."""
    f = kiln.function(lambda a: (complex(float(a[0]), float(a[1])) / complex(float(a[2]), float(a[3])),
                                 complex(float(a[0]), float(a[1])) / float(a[2]), float(a[0]) / complex(float(a[2]), float(a[3])),
                                 int(a[0]) / complex(float(a[2]), float(a[3])), 1j / float(a[2]),
                                 (a[0] + 1j * a[1]) / (a[2] + 1j * a[3])))
    rng = np.random.default_rng(5)
    rows = [*rng.uniform(-10, 10, (150, 4)), [1.0, np.inf, 2.0, 3.0], [1.0, np.nan, 2.0, -1.0], [1.0, 2.0, np.inf, 1.0],
            [3.0, -4.0, 1e-300, 1e300]]
    for v in rows:
        a, b, c, d = (float(x) for x in v)
        want = (complex(a, b) / complex(c, d), complex(a, b) / c, a / complex(c, d), int(a) / complex(c, d), 1j / c,
                (np.float64(a) + 1j * np.float64(b)) / (np.float64(c) + 1j * np.float64(d)))
        got = f(np.array(v))
        assert [type(g) for g in got] == [complex] * 5 + [np.complex128]
        assert all(repr(g) == repr(w) for g, w in zip(got, want)), (v, got, want)


def test_a_quotient_by_a_python_number_written_in_the_code_is_cpythons_and_quiet() -> None:
    """A traced complex over a number the code writes (``z / n`` of a DFT, ``z / (2 + 1j)``):
    CPython's branch is taken while tracing, to the bit, and no RuntimeWarning is raised (both of
    Smith's branches were computed, one dividing by the divisor's zero part: "divide by zero
    encountered in divide" at every such quotient). A zero divisor raises Python's error."""
    divisors = [4, 0.5, -3.0, 2 + 1j, 1j, -0.25 - 7j, 3 - 3j, 1e-300 + 1e300j]

    def quotients(a: np.ndarray) -> tuple[complex, ...]:
        z = complex(float(a[0]), float(a[1]))
        return tuple(z / d for d in divisors)

    f = kiln.function(quotients)
    rng = np.random.default_rng(7)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for v in [*rng.uniform(-10, 10, (40, 2)), [np.inf, 1.0], [np.nan, 2.0]]:
            want, got = quotients(v), f(np.array(v))
            assert [type(g) for g in got] == [complex] * len(divisors)
            assert all(repr(g) == repr(w) for g, w in zip(got, want)), (v, got, want)
        by_zero = kiln.function(lambda a: complex(float(a[0]), float(a[1])) / 0.0)
        with pytest.raises(ZeroDivisionError, match=r"test_python_division\.py:\d+.*complex division by zero"):
            by_zero(np.array([1.0, 2.0]))


def modular_powers(a):
    return pow(int(a[0]), 5, 7), pow(int(a[0]), int(a[1]), 1000003), pow(3, int(a[1]), -7), pow(int(a[0]), 0, 5), \
        pow(2.0, int(a[1]))


def test_pow_with_a_modulus_is_pythons_modular_exponentiation() -> None:
    """``pow(a, b, m)`` of Python ints computed at run time: exact, with ``m``'s sign, where Python's
    ``a ** b`` would be far beyond 64 bits; ``m == 0`` raises Python's ValueError; a modulus whose
    squares leave int64 raises OverflowError; a negative exponent (a modular inverse) is refused."""
    compiled = kiln.function(modular_powers)
    for v in ([123456789.0, 1000.0], [-17.0, 3.0]):
        got, want = compiled(np.array(v)), modular_powers(np.array(v))
        assert got == want and [type(g) for g in got] == [type(w) for w in want], (v, got, want)
    by = kiln.function(lambda a: pow(int(a[0]), int(a[1]), int(a[2])))
    assert by(np.array([5.0, 117.0, -13.0])) == pow(5, 117, -13)
    with pytest.raises(ValueError, match=r"test_python_division\.py:\d+.*pow\(\) 3rd argument cannot be 0"):
        by(np.array([5.0, 117.0, 0.0]))
    with pytest.raises(OverflowError, match=r"\|m\| > 3037000499"):
        by(np.array([5.0, 117.0, 5e9]))
    with pytest.raises(NotImplementedError, match="modular inverse"):
        kiln.function(lambda a: pow(int(a[0]), -1, 7))(np.array([3.0]))


def products_of_numbers(a, b):
    out = np.empty_like(a)
    python = []
    for i in range(a.shape[0]):
        out[i] = a[i] * b[i] + a[i]  # NumPy scalars: no fused multiply-add
        python.append(complex(a[i]) * complex(b[i]))
    z = 0j
    for i in range(a.shape[0]):
        z = z * z + complex(a[i]) * 0.25
    return out, python, z, a * b, np.array(a[0]) * np.array(b[0]), [np.multiply(a[i], b[i]) for i in range(8)]


def test_a_product_of_complex_numbers_rounds_as_numpy_s_scalars_and_python_s() -> None:
    """NumPy multiplies complex arrays (0-d ones too) with a fused multiply-add, but NumPy scalars
    and Python complex numbers without one: kiln used the array loop's everywhere (a Python
    ``z = z * z + c`` drifted from CPython's in the last bit), and gcc's vectorizer fused the
    written-out product of a loop over NumPy scalars (kiln_opaque). Every product here is to the bit."""
    rng = np.random.default_rng(7)
    a, b = (rng.normal(size=64) + 1j * rng.normal(size=64) for _ in range(2))
    want, got = products_of_numbers(a, b), kiln.function(products_of_numbers)(a, b)
    np.testing.assert_array_equal(got[0], want[0])
    assert [repr(g) for g in got[1]] == [repr(w) for w in want[1]] and type(got[1][0]) is complex
    assert repr(got[2]) == repr(want[2]) and type(got[2]) is complex
    np.testing.assert_array_equal(got[3], want[3])
    assert got[4] == want[4] and type(got[4]) is type(want[4])
    assert got[5] == want[5]  # (np.multiply of scalars runs NumPy's array loop)


def number_or_array(a, w):
    if a[0].real > 0:
        z = complex(a[0])  # a Python complex on this path
    else:
        z = a[1:2].reshape(())  # a 0-d array on this one
    return z * w


def test_a_complex_product_whose_rounding_the_path_decides_is_refused() -> None:
    with pytest.raises(NotImplementedError, match=r"test_python_division.py:\d+: a complex product of a value that is a number on some paths"):
        kiln.function(number_or_array)(np.array([1 + 2j, 3 - 1j]), np.complex128(0.5 + 0.25j))
