"""The code of dataclasses' methods, stored by the first process and run by later ones
(kiln/dataclass_code.py): the classes behave as Python's own, and a later process compiles none
of the texts an earlier one stored. New processes, each with its own cache directory."""

from __future__ import annotations

import hashlib
import json
import marshal
import os
import subprocess
import sys
from pathlib import Path

#: a frozen dataclass with fields no module of kiln's has (texts of its own), used as Python's would be
_CHILD = """
import dataclasses, json, sys, warnings
warnings.simplefilter("error")
import kiln
from kiln import dataclass_code
after_import = len(dataclass_code._codes)

@dataclasses.dataclass(frozen=True)
class Point:
    zeta_first_call: int
    omega_first_call: str = "o"

p = Point(3)
try:
    p.zeta_first_call = 4
    frozen = False
except dataclasses.FrozenInstanceError:
    frozen = True
init = Point.__init__.__annotations__
print(json.dumps({
    "repr": repr(p), "eq": p == Point(3, "o"), "ne": p != Point(4), "hash": hash(p) == hash(Point(3)),
    "frozen": frozen, "annotation": init["zeta_first_call"] is int,
    "compiled": sorted(t for t in dataclass_code._compiled if "zeta_first_call" in t).__len__(),
    "kiln_compiled": len(dataclass_code._compiled), "after_import": after_import,
}))
"""


def _run(cache: Path) -> dict[str, object]:
    env = {**os.environ, "KILN_CACHE_DIR": str(cache)}
    return json.loads(subprocess.run([sys.executable, "-c", _CHILD], env=env, capture_output=True, text=True,
                                     check=True).stdout)


def test_a_later_process_runs_the_stored_code_and_the_classes_behave_as_pythons(tmp_path: Path) -> None:
    first, second = _run(tmp_path), _run(tmp_path)
    for got in (first, second):
        assert got["repr"] == "Point(zeta_first_call=3, omega_first_call='o')"
        assert got["eq"] and got["ne"] and got["hash"] and got["frozen"]
        assert got["annotation"]  # the type itself, as dataclasses' exec gives (no __future__ flag inherited)
    assert first["compiled"] == 6  # __init__, __repr__, __eq__, __hash__, __setattr__, __delattr__
    assert second["compiled"] == 0 and second["kiln_compiled"] == 0
    assert second["after_import"] > 100  # xDSL's core, which import kiln loads, ran through the store too


def test_a_damaged_store_is_compiled_again_with_a_warning(tmp_path: Path) -> None:
    _run(tmp_path)
    (stored,) = tmp_path.glob("dataclass-code-*")
    stored.write_bytes(stored.read_bytes()[:100])
    env = {**os.environ, "KILN_CACHE_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", _CHILD.replace('simplefilter("error")', 'simplefilter("always")')],
                          env=env, capture_output=True, text=True, check=True)
    assert f"cache entry {stored} is damaged" in done.stderr
    assert json.loads(done.stdout)["compiled"] == 6
    assert _run(tmp_path)["compiled"] == 0  # stored again, whole, at the exit of the one before


def test_the_stored_file_keeps_at_most_limit_texts_the_first_defined(tmp_path: Path) -> None:
    child = (
        "import dataclasses, json\nfrom kiln import dataclass_code\ndataclass_code.LIMIT = 20\n"
        "for i in range(10):\n    dataclasses.make_dataclass(f'C{i}', [(f'field_{i}', int)], frozen=True)\n"
        "print(json.dumps(list(dataclass_code._codes)[:20]))\n"
    )
    env = {**os.environ, "KILN_CACHE_DIR": str(tmp_path)}
    first = subprocess.run([sys.executable, "-c", child], env=env, capture_output=True, text=True, check=True).stdout
    (stored,) = tmp_path.glob("dataclass-code-*")
    data = stored.read_bytes()
    assert hashlib.sha256(data[32:]).digest() == data[:32]
    assert list(marshal.loads(data[32:])) == json.loads(first)
