"""The natives kiln's own rule files call; user rule files may call them too."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import AnyFloat, IntegerType, Signedness
from xdsl.ir import Attribute

from kiln.passes.rules.natives import register_rule_native
from kiln.passes.rules.values import kind_of

#: significand bits (with the implicit one) of the float types: the integers they hold exactly
_SIGNIFICAND = {16: 11, 32: 24, 64: 53}


@register_rule_native
def is_identity(perm: Sequence[int]) -> bool:
    """Whether the permutation ``perm`` leaves every axis where it is."""
    return tuple(perm) == tuple(range(len(perm)))


@register_rule_native
def compose(first: Sequence[int], second: Sequence[int]) -> tuple[int, ...]:
    """The one permutation that transposes as ``first`` and then ``second`` do: result axis ``i``
    is operand axis ``first[second[i]]``."""
    return tuple(first[s] for s in second)


@register_rule_native
def round_trips(element: Attribute, via: Attribute) -> bool:
    """Whether casting every value of ``element`` to ``via`` and back gives the value back, bit
    for bit (NumPy's ``astype``): bools through anything, integers through integers at least as
    wide (wrapping undoes itself) and through floats whose significand holds them, floats
    through floats at least as wide."""
    kind, via_kind = kind_of(element), kind_of(via)
    if kind == "bool":
        return via_kind in ("bool", "int", "uint", "float")
    if kind in ("int", "uint"):
        assert isinstance(element, IntegerType)
        width = element.width.data
        if via_kind in ("int", "uint"):
            assert isinstance(via, IntegerType)
            return via.width.data >= width
        if via_kind == "float":
            assert isinstance(via, AnyFloat)
            magnitude_bits = width if element.signedness.data == Signedness.UNSIGNED else width - 1
            return magnitude_bits <= _SIGNIFICAND.get(via.bitwidth, 0)
        return False
    if kind == "float":
        assert isinstance(element, AnyFloat)
        return via_kind == "float" and via.bitwidth >= element.bitwidth  # type: ignore[attr-defined]
    return False
