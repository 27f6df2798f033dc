"""``kiln.dask.optimize``: Dask's array optimization, with fused blockwise layers run as kiln kernels.

Dask fuses the blockwise layers of a ``dask.array`` expression (``optimize_blockwise``) into one
layer whose task runs a small graph of NumPy calls per chunk. Here each elementwise part of that
graph (NumPy ufuncs, ``operator`` arithmetic, ``np.where`` and ``astype`` on blocks and scalars)
becomes the source of one ``kiln.function`` (a :class:`~kiln.frontend.dask_kernels.Kernel`,
referenced by source and key, compiled once per worker process and chunk shape); what it does not
translate stays in the task as Dask's own, feeding or taking the kernels. Then Dask's own array
optimization runs on the result, so culling and low-level fusion are as without kiln. See
docs/dask.md.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from kiln.frontend.dask_kernels import ChunkTask, Kernel, content_name, dtype_source, number_source
from kiln.frontend.dtypes import SUPPORTED
from kiln.frontend.numpy_dispatch import supports_ufunc

#: ``operator`` functions Dask's array arithmetic calls, as the NumPy ufunc each one is on arrays
_OPERATORS: dict[Any, np.ufunc] = {
    operator.add: np.add, operator.sub: np.subtract, operator.mul: np.multiply, operator.truediv: np.true_divide,
    operator.floordiv: np.floor_divide, operator.mod: np.remainder, operator.pow: np.power,
    operator.neg: np.negative, operator.abs: np.absolute, operator.invert: np.invert,
    operator.and_: np.bitwise_and, operator.or_: np.bitwise_or, operator.xor: np.bitwise_xor,
    operator.lt: np.less, operator.le: np.less_equal, operator.gt: np.greater, operator.ge: np.greater_equal,
    operator.eq: np.equal, operator.ne: np.not_equal,
}


@dataclass(frozen=True)
class BlockTask(ChunkTask):
    """A kernel's task in an optimized layer. The optimization does not see dtypes, so blocks
    kiln does not compile (a dtype outside kiln's, such as datetime64; a masked or non-NumPy
    array) run the kernel's source on NumPy: the calls Dask's own task makes, so the meaning is
    Dask's."""

    def __call__(self, *blocks: Any, **_dask_options: Any) -> Any:
        kernel = self.kernel.function()
        if all(type(b) is np.ndarray and b.dtype in SUPPORTED for b in blocks):
            return kernel(*blocks)
        return kernel.python_function(*blocks)


def optimize(dsk: Any, keys: Any, **kwargs: Any) -> Any:
    """Dask's array optimization (``dask.config.set(array_optimize=kiln.dask.optimize)``, or called
    as ``optimize(graph, keys)``): blockwise fusion, the fused layers' elementwise parts as kiln
    kernels, then Dask's own ``dask.array.optimization.optimize``."""
    from dask.array.optimization import optimize as dask_optimize
    from dask.blockwise import Blockwise, optimize_blockwise
    from dask.core import flatten
    from dask.highlevelgraph import HighLevelGraph

    keys = list(flatten(keys if isinstance(keys, (list, set)) else [keys]))
    if not isinstance(dsk, HighLevelGraph):
        dsk = HighLevelGraph.from_collections(str(id(dsk)), dsk, dependencies=())
    dsk = optimize_blockwise(dsk, keys=keys)
    layers = {name: _with_kernel(layer) if isinstance(layer, Blockwise) else layer
              for name, layer in dsk.layers.items()}
    return dask_optimize(HighLevelGraph(layers, dsk.dependencies), keys, **kwargs)


def _with_kernel(layer: Any) -> Any:
    """``layer`` with each maximal elementwise part of its task as one kiln kernel: one per value
    that the output or an untranslated call (Dask's own, kept) takes; ``layer`` itself where there
    is none."""
    from dask._task_spec import Task, TaskRef, _execute_subgraph
    from dask.blockwise import Blockwise, blockwise_token

    task = layer.task
    if task.func is _execute_subgraph:
        inner, outkey = dict(task.args[0]), task.args[1]
    else:
        inner, outkey = {task.key: task}, task.key
    scalars = {blockwise_token(i): value for i, (value, index) in enumerate(layer.indices)
               if index is None and _is_number(value)}
    translatable = {key for key, t in inner.items() if _Translation.render(t) is not None}
    taken = {dep for key, t in inner.items() if key not in translatable for dep in t.dependencies}
    roots = sorted((key for key in translatable if key == outkey or key in taken), key=str)
    if not roots:
        return layer
    tasks = dict(inner)
    for root in roots:
        translated = _Translation(inner, scalars, stops=set(roots) - {root})
        kernel = translated.kernel(root)
        tasks[root] = Task(root, BlockTask(kernel), *(TaskRef(k) for k in translated.inputs))
    needed: list[Any] = []
    stack = [outkey]
    while stack:  # what the output needs: the calls inside kernels are gone
        key = stack.pop()
        if key in tasks and key not in needed:
            needed.append(key)
            stack += list(tasks[key].dependencies)
    return Blockwise(layer.output, layer.output_indices, Task.fuse(*(tasks[k] for k in needed), key=layer.output),
                     layer.indices, layer.numblocks, concatenate=layer.concatenate, new_axes=layer.new_axes,
                     output_blocks=layer.output_blocks, annotations=layer.annotations, io_deps=layer.io_deps)


def _is_number(value: Any) -> bool:
    return isinstance(value, (bool, int, float, np.bool_, np.integer, np.floating))


def _scalar_source(value: Any) -> str:
    """A Python or NumPy scalar as source of the same type (a NumPy one keeps its dtype under NEP 50)."""
    if isinstance(value, np.generic):
        return f"{dtype_source(value.dtype)}({number_source(value.item())})"
    return number_source(value)


class _Translation:
    """The kernel source of one fused task graph: each translatable task a NumPy call on names;
    blocks, untranslated tasks' results and non-literal arguments are the kernel's inputs."""

    def __init__(self, inner: Mapping[Hashable, Any], scalars: Mapping[str, Any], stops: set[Hashable]):
        self.inner, self.scalars = inner, scalars
        #: tasks computed by other kernels: inputs here
        self.stops = stops
        self.inputs: dict[Hashable, str] = {}
        self.names: dict[Hashable, str] = {}
        self.lines: list[str] = []

    def value(self, key: Hashable) -> str:
        """The source of ``key``'s result: a name ``v<i>`` when a kernel line computes it, else an
        input ``in<i>`` (or a scalar literal)."""
        if key in self.names:
            return self.names[key]
        if key in self.scalars:
            return _scalar_source(self.scalars[key])
        task = self.inner.get(key)
        render = None if key in self.stops else self.render(task)
        if render is None:
            return self.inputs.setdefault(key, f"in{len(self.inputs)}")
        args = [self._argument(a) for a in task.args]
        name = self.names[key] = f"v{len(self.names)}"
        self.lines.append(f"    {name} = {render(args)}")
        return name

    def _argument(self, arg: Any) -> str:
        from dask._task_spec import DataNode, TaskRef

        if isinstance(arg, TaskRef):
            return self.value(arg.key)
        return _scalar_source(arg.value if isinstance(arg, DataNode) else arg)

    @staticmethod
    def render(task: Any) -> Callable[[list[str]], str] | None:
        """How ``task``'s call is written in a kernel, from its arguments' sources: a ufunc kiln
        traces, ``np.where`` or Dask's ``astype`` to a dtype of kiln's, on blocks and numbers;
        None where the call stays Dask's."""
        from dask._task_spec import DataNode, Task, TaskRef
        from dask.array.chunk import astype

        if type(task) is not Task:
            return None
        numbers = (a.value if isinstance(a, DataNode) else a for a in task.args if not isinstance(a, TaskRef))
        if not all(_is_number(n) for n in numbers):
            return None
        func = _OPERATORS.get(task.func, task.func) if isinstance(task.func, Hashable) else None
        if func is np.where and len(task.args) == 3 and not task.kwargs:
            return lambda args: f"np.where({', '.join(args)})"
        if func is astype and len(task.args) == 1 and set(task.kwargs) == {"astype_dtype"}:
            dtype = np.dtype(task.kwargs["astype_dtype"])
            return (lambda args: f"{args[0]}.astype({dtype_source(dtype)})") if dtype in SUPPORTED else None
        if (task.kwargs or not supports_ufunc(func) or func is np.matmul or getattr(np, func.__name__, None) is not func
                or len(task.args) != func.nin or func.nout != 1):
            return None
        return lambda args: f"np.{func.__name__}({', '.join(args)})"

    def kernel(self, outkey: Hashable) -> Kernel:
        """The kiln kernel computing ``outkey`` from the inputs, named after its code."""
        self.value(outkey)
        params = list(self.inputs.values())
        body = [*self.lines, f"    return {self.names[outkey]}"]
        name = content_name("kiln_dask", f"{params}{body}")
        return Kernel("\n".join([f"def {name}({', '.join(params)}):", *body]) + "\n", name)
