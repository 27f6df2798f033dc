"""kiln: plain Python functions over NumPy arrays, traced, lowered level by level, and run as native code.

The public API (see docs/ and the design card):

- :func:`function` / :class:`Function` / :class:`ConcreteFunction`: tracing, per-signature caching
- :class:`TensorSpec`: a fixed ``input_signature``
- array ops usable inside and outside compiled functions: :func:`matmul`, :func:`relu`, ...
- :mod:`kiln.config`: ``run_functions_eagerly``
- :func:`register_dialect`, :func:`register_pass`: extend kiln-opt and the pipelines
- :func:`register_rule_native`: a Python function that rule files call by name (docs/rules.md)
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

from kiln import dataclass_code  # noqa: E402 (kiln.backends.cache reads __version__)

dataclass_code.install()  # before any dataclass is defined: xdsl_lazy_formats imports xDSL's core

from kiln import xdsl_lazy_formats  # noqa: E402

xdsl_lazy_formats.apply()  # before any dialect is defined

# Public names and the module defining each; imported on first use so that
# ``kiln-opt`` and ``import kiln.dialects.graph`` do not pay for the frontend.
_EXPORTS: dict[str, str] = {
    "config": "kiln.config",
    "function": "kiln.frontend.function",
    "Function": "kiln.frontend.function",
    "ConcreteFunction": "kiln.frontend.concrete",
    "KilnCompileError": "kiln.frontend.concrete",
    "TensorSpec": "kiln.frontend.signature",
    "Variable": "kiln.frontend.variables",
    "autograph": "kiln.autograph",
    "optimizers": "kiln.optimizers",
    "random": "kiln.frontend.random_numbers",
    "dask": "kiln.frontend.dask_optimize",
    "range": "kiln.frontend.range",
    "TensorArray": "kiln.frontend.tensor_array",
    "print": "kiln.frontend.printing",
    "register_dialect": "kiln.registry",
    "register_pass": "kiln.registry",
    "register_rule_native": "kiln.passes.rules",
    "RuleBuilder": "kiln.passes.rules",
    "grad": "kiln.frontend.gradients",
    "GradientTape": "kiln.frontend.gradient_tape",
    "value_and_grad": "kiln.frontend.gradients",
    **{
        name: "kiln.frontend.array_ops"
        for name in (
            "abs cast concat constant conv2d exp log matmul maximum minimum ones ones_like "
            "reduce_max reduce_mean reduce_min reduce_sum relu reshape sigmoid sqrt tanh "
            "transpose where zeros zeros_like"
        ).split()
    },
}

#: public names that are modules kept elsewhere (``kiln.random``: a file random.py at the package
#: root would shadow Python's own ``random`` for scripts run from a checkout; ``kiln.dask``, Dask)
_MODULES = ("kiln.frontend.random_numbers", "kiln.frontend.dask_optimize")

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'kiln' has no attribute {name!r}")
    mod = importlib.import_module(module)
    value = mod if module in (f"kiln.{name}", *_MODULES) else getattr(mod, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])
