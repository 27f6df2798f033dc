"""``kiln lit-config DIR``: the lit configuration for a project's own lit tests of its passes.

The file it writes finds ``kiln-opt`` and ``filecheck`` beside the Python that runs ``lit``
(the environment kiln is installed in), so ``lit DIR`` works without activating it.
"""

from __future__ import annotations

from pathlib import Path

TEMPLATE = '''\
# lit configuration written by `kiln lit-config`: `lit {dir}` runs the tests below this folder.
import os
import sys
import sysconfig

import lit.formats

config.name = {name!r}
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.excludes = ["lit.cfg.py", "Output", "Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.test_source_root, "Output")

# lit scrubs the environment: keep what kiln reads, and find kiln-opt and filecheck beside the
# Python that runs lit
for var in ("PATH", "PYTHONPATH", "HOME", "KILN_CACHE_DIR", "XDG_CACHE_HOME", "KILN_ISA", "CC"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
scripts = sysconfig.get_path("scripts")
config.environment["PATH"] = os.pathsep.join([scripts, config.environment.get("PATH", "")])
config.substitutions.append(("%python", sys.executable))
'''


def write_lit_config(folder: Path, name: str | None = None, force: bool = False) -> Path:
    """Write ``folder/lit.cfg.py`` (creating ``folder``); ``FileExistsError`` rather than replace
    one unless ``force``."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "lit.cfg.py"
    if path.exists() and not force:
        raise FileExistsError(f"{path} exists (use --force to replace it)")
    project = name or folder.resolve().parent.name or "tests"
    path.write_text(TEMPLATE.format(dir=folder.as_posix(), name=project))
    return path
