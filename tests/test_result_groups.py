"""Named result groups of a staged construct's op (frontend/autograph/result_groups.py)."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import TensorType, f32, i1, i8

from kiln.frontend.autograph.result_groups import ResultGroups

_F, _B, _K = TensorType(f32, [2]), TensorType(i1, []), TensorType(i8, [])


def test_groups_are_built_and_read_by_name():
    groups = ResultGroups(values=[_F, _F], storages=[], flags=[_B])
    groups.add(kinds=[_K])
    assert groups.types() == [_F, _F, _B, _K]
    assert groups.types("flags", "kinds") == [_B, _K]
    ordered = groups.ordered(kinds=["k"], flags=["f"], values=["v0", "v1"], storages=[])
    assert ordered == ["v0", "v1", "f", "k"]  # in the groups' order, whatever the keywords' order
    assert groups.split(ordered) == {"values": ["v0", "v1"], "storages": [], "flags": ["f"], "kinds": ["k"]}


def test_a_group_of_the_wrong_size_is_an_internal_error():
    groups = ResultGroups(values=[_F], flags=[_B])
    with pytest.raises(AssertionError, match="group 'flags'"):
        groups.ordered(values=["v"], flags=[])
    with pytest.raises(AssertionError, match="groups"):
        groups.ordered(values=["v"])
    with pytest.raises(AssertionError, match="twice"):
        groups.add(flags=[_B])
