"""What the docs state about kiln holds: the dtypes the user guide lists are the ones kiln
supports, and each compiles to what NumPy computes."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import kiln
from kiln.frontend import dtypes

DOCS = Path(__file__).resolve().parent.parent / "docs"


def _listed_dtypes() -> list[str]:
    text = " ".join((DOCS / "user-guide.md").read_text().split())
    found = re.search(r"\*\*Supported dtypes:\*\* (.*?), with NumPy", text)
    assert found, "docs/user-guide.md lists the supported dtypes"
    return re.split(r", (?:and )?| and ", found.group(1))


def test_the_user_guide_lists_the_supported_dtypes() -> None:
    assert sorted(_listed_dtypes()) == sorted(str(d) for d in dtypes.SUPPORTED)


def _arithmetic(a: np.ndarray) -> np.ndarray:
    return a * 2 + a


@pytest.mark.parametrize("name", _listed_dtypes())
def test_each_listed_dtype_compiles(name: str) -> None:
    x = np.array([0, 1, 3], dtype=name)
    got, want = kiln.function(_arithmetic)(x.copy()), _arithmetic(x.copy())
    assert got.dtype == want.dtype and np.array_equal(got, want)
