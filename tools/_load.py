"""Import a user's Python file by path, for ``kiln-opt --load`` and ``kiln compile``."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType


def load_file(path: Path) -> ModuleType:
    """Execute ``path`` as a module named after its stem (registered in ``sys.modules``), its
    folder first on ``sys.path`` as ``python FILE`` puts it, so that it imports the modules
    beside it."""
    path = path.resolve()
    spec = importlib.util.spec_from_file_location(path.stem, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    folder = str(path.parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    return module
