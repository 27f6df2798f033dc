"""``kiln.function(passes=...)``: the user's passes, run at named stages of the pipeline.

A pass runs on the IR of the stage it is listed under, after kiln's own passes to that stage:
``{"loops": "my-unroll{factor=4}"}`` rewrites the loops IR before the C emitter sees it, and
``lowered("loops")`` shows the result. Passes under ``"graph"`` run on the traced graph (after
the function's rules) before it is lowered. The compile caches key on :attr:`UserPasses.fingerprint`:
each pass's spec (name and options), the text of the file that defines it and of the user's
modules that file reaches through its imports, so that editing a pass or a helper it imports
never runs stale C.
"""

from __future__ import annotations

import hashlib
import inspect
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import ArgSpecParseError

from kiln import pipelines, universe
from kiln.frontend.trace_context import is_user_file

#: what ``passes=`` takes: passes for the graph (a pipeline spec such as ``"fold-relu,cse"``, or
#: pass instances), or a mapping from stage name to such passes
PassList = str | Sequence[ModulePass]
PassSpec = PassList | Mapping[str, PassList]


@dataclass(frozen=True)
class UserPasses:
    """The user's passes by stage, in the order they run."""

    by_stage: Mapping[str, tuple[ModulePass, ...]]
    #: what the compile caches key on (passes, options, the code that defines them)
    fingerprint: str

    def apply(self, ctx: Context, module: ModuleOp, stage: str) -> None:
        """Run the passes listed under ``stage`` (nothing if none), each verified after it runs
        when ``KILN_VERIFY`` is set, as kiln's own (:func:`kiln.pipelines.verify_after_each_pass`)."""
        verify = pipelines.verifying()
        for p in self.by_stage.get(stage, ()):
            p.apply(ctx, module)
            if verify:
                pipelines.verify_after_each_pass(p, module, None)


def load_user_passes(spec: PassSpec, stages: Sequence[str], where: str = "kiln.function") -> UserPasses:
    """Check ``spec`` against the registered passes and the target's ``stages`` (``graph`` first);
    ``ValueError``/``TypeError`` naming what is wrong, at decoration time."""
    by_name = spec if isinstance(spec, Mapping) else {"graph": spec}
    by_stage: dict[str, tuple[ModulePass, ...]] = {}
    for stage, passes in by_name.items():
        if stage not in stages:
            raise ValueError(f"{where}: passes= names stage {stage!r}; this target's stages are {', '.join(stages)}")
        by_stage[stage] = _passes(passes, where)
    digest = hashlib.sha256()
    for stage, passes in by_stage.items():
        for p in passes:
            digest.update(f"{stage}:{p.pipeline_pass_spec()};".encode())
            digest.update(_defining_text(type(p)))
    return UserPasses(by_stage, digest.hexdigest())


def _passes(passes: PassList, where: str) -> tuple[ModulePass, ...]:
    if isinstance(passes, str):
        try:
            return tuple(universe.build_pipeline(passes).passes)
        except (ValueError, ArgSpecParseError) as e:  # an unknown pass or option; a malformed spec
            raise ValueError(f"{where}: passes={passes!r}: {' '.join(str(e).split())}") from None
    if isinstance(passes, ModulePass):
        return (passes,)
    found = tuple(passes)
    for p in found:
        if not isinstance(p, ModulePass):
            hint = " (an instance is needed: MyPass(), not MyPass)" if isinstance(p, type) else ""
            raise TypeError(f"{where}: passes= takes xDSL ModulePass instances or a pipeline spec, got {p!r}{hint}")
    return found


def _defining_text(cls: type[ModulePass]) -> bytes:
    """The source files of ``cls``'s module and of the user's modules it imports (a pass of kiln's
    or of an installed package: its file alone), or its name where it has none."""
    module = sys.modules.get(cls.__module__)
    files = sorted(_user_files(module, set())) if module is not None else []
    try:
        texts = [open(path, "rb").read() for path in files or [inspect.getfile(cls)]]
    except (TypeError, OSError):
        return f"{cls.__module__}.{cls.__qualname__}".encode()
    return b"".join(b"%d:%s" % (len(text), text) for text in texts)


def _user_files(module: object, seen: set[str]) -> Iterator[str]:
    """The file of ``module`` if it is the user's (not kiln's, the standard library's or an installed
    package's), then those of the user's modules its globals name (modules, or their functions and
    classes), transitively."""
    path = getattr(module, "__file__", None)
    if not isinstance(path, str) or not path.endswith(".py") or path in seen or not is_user_file(path):
        return
    seen.add(path)
    yield path
    for value in list(vars(module).values()):
        named = value if inspect.ismodule(value) else sys.modules.get(getattr(value, "__module__", None) or "")
        if named is not None:
            yield from _user_files(named, seen)
