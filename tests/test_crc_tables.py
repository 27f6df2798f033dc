"""Bitwise CRC loops as table steps (passes/kiln_crc_tables.py): NPBench's crc16 as written and
other CRCs against the same Python run on NumPy, exactly, with and without the rewrite."""

from __future__ import annotations

import numpy as np
import pytest

import kiln


def crc16(data, poly=0x8408):  # NPBench's crc16_numpy.py, as written
    crc = 0xFFFF
    for b in data:
        cur_byte = 0xFF & b
        for _ in range(0, 8):
            if (crc & 0x0001) ^ (cur_byte & 0x0001):
                crc = (crc >> 1) ^ poly
            else:
                crc >>= 1
            cur_byte >>= 1
    crc = (~crc & 0xFFFF)
    crc = (crc << 8) | ((crc >> 8) & 0xFF)
    return crc & 0xFFFF


def crc32(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= int(b)
        for _ in range(8):
            crc = (crc >> 1) ^ 0xEDB88320 if crc & 1 else crc >> 1
    return crc ^ 0xFFFFFFFF


def seven_steps(data):  # 7 steps a byte: not a byte table, left a loop
    crc = 0xFFFF
    for b in data:
        cur_byte = 0xFF & b
        for _ in range(0, 7):
            if (crc & 0x0001) ^ (cur_byte & 0x0001):
                crc = (crc >> 1) ^ 0x8408
            else:
                crc >>= 1
            cur_byte >>= 1
    return crc


def adds(data):  # a carry is not linear over GF(2): left a loop
    crc = 0xFFFF
    for b in data:
        cur_byte = 0xFF & b
        for _ in range(0, 8):
            if (crc & 0x0001) ^ (cur_byte & 0x0001):
                crc = ((crc >> 1) + 0x8408) & 0xFFFF
            else:
                crc >>= 1
            cur_byte >>= 1
    return crc


_DATA = [np.random.default_rng(s).integers(0, 256, size=n, dtype=np.uint8) for s, n in ((1, 1000), (2, 1), (3, 0))]


@pytest.mark.parametrize("fn, tabled", [(crc16, True), (crc32, True), (seven_steps, False), (adds, False)],
                         ids=lambda v: getattr(v, "__name__", str(v)))
def test_crc_loops_match_numpy(fn, tabled: bool) -> None:
    compiled = kiln.function(fn)
    for data in _DATA:
        want = fn(data.copy())
        got = compiled(data)
        assert int(got) == int(want), (fn.__name__, len(data))
    assert ("__kiln_crc_table" in compiled.get_concrete_function(_DATA[0]).source) == tabled


def test_crc16_other_polynomials() -> None:
    """The table is computed from the loop, so any polynomial constant gets its own."""
    for poly in (0xA001, 0x1021, 0x8005):
        def with_poly(data, poly=poly):
            return crc16(data, poly)
        compiled = kiln.function(with_poly)
        assert int(compiled(_DATA[0])) == with_poly(_DATA[0].copy())
        assert "__kiln_crc_table" in compiled.get_concrete_function(_DATA[0]).source


def eight_steps_of_a_flag(a):
    v = a.sum() > 0
    t = 0
    while t < 3:
        t += 1
        if a[0] < -4:
            for _ in range(8):
                v = np.asarray(v, dtype=np.int64) <= 4
    return v


def test_an_eight_step_loop_on_a_flag_is_not_a_crc() -> None:
    """kiln.fuzz 20702-616: an 8-trip loop whose one state is a bool (an i1 local) took the CRC
    shape, and the rewrite built its byte mask 0xFF as an i1 constant: the compile failed. A state
    narrower than the byte a table step takes is left alone."""
    for a in (np.array([-5.0, 1.0]), np.array([1.0, 1.0])):
        compiled = kiln.function(eight_steps_of_a_flag)
        assert compiled(a) == eight_steps_of_a_flag(a)
        assert "__kiln_crc_table" not in compiled.get_concrete_function(a).source
