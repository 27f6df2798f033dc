"""What kiln-opt offers, grouped for people: the named pipelines, kiln's passes, the user's
(``--load``) and xDSL's, and the output targets that work on what kiln's pipelines produce.

``--help`` names the pipelines and the targets and points at ``--list-pipelines`` and
``--list-passes``; xdsl-opt's help listed ~150 pass names in one run-on paragraph.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Iterable

from xdsl.passes import ModulePass
from xdsl.utils.arg_spec import parse_pipeline

from kiln import pipelines, registry, universe

#: the targets kiln-opt offers: kiln's C and CUDA emitters and the IR printer. xDSL's others
#: (llvm, x86-asm, riscv-asm, wgsl, ...) take IR of xDSL's low-level dialects, which kiln's
#: pipelines never produce, or a package kiln does not install (llvmlite): xdsl-opt has them
TARGETS = ("mlir", *universe.TARGETS)

PassFactories = dict[str, Callable[[], type[ModulePass]]]


def pass_groups(available: PassFactories) -> dict[str, list[str]]:
    """The names of ``available`` by origin: kiln's pipelines and passes, the user's, xDSL's."""
    kiln_passes = set(universe.pass_names())
    groups: dict[str, list[str]] = {
        "kiln pipelines": list(pipelines.PIPELINES),
        "kiln passes": sorted(n for n in available if n in kiln_passes),
        "passes loaded with --load": sorted(n for n in available if n in registry.USER_PASSES),
    }
    known = {n for names in groups.values() for n in names}
    groups["xDSL passes"] = sorted(n for n in available if n not in known)
    return {title: names for title, names in groups.items() if names}


def list_passes(available: PassFactories) -> str:
    """``--list-passes``: every pass name, one a line, under its group's title."""
    return "\n\n".join(f"{title}:\n" + "\n".join(f"  {name}" for name in names) for title, names in pass_groups(available).items())


def list_pipelines() -> str:
    """``--list-pipelines``: each named pipeline and the passes it runs, stage by stage (a
    stage's spec is ``pipelines.STAGES[stage]``)."""
    lines = []
    for name, stages in pipelines.PIPELINES.items():
        lines.append(name)
        for stage in stages:
            passes = ", ".join(str(p) for p in parse_pipeline(pipelines.STAGES[stage]))
            lines.append(_wrap(passes, f"  {stage + ':':<10}"))
    return "\n".join(lines)


def _wrap(text: str, first: str, indent: str = " " * 12) -> str:
    return textwrap.fill(text, width=100, initial_indent=first, subsequent_indent=indent, break_on_hyphens=False)


def passes_help() -> str:
    return (
        "the passes to run, comma-separated, with options in braces: 'graph-to-c', "
        "'cse,canonicalize' or 'apply-rules{file=\"my.rules\"}' (kiln's pipelines and passes are listed below)"
    )


def help_epilog(available: PassFactories) -> str:
    """The end of ``--help``: kiln's pipelines and passes, the user's, and how to see xDSL's."""
    groups = pass_groups(available)
    xdsl = groups.pop("xDSL passes", [])
    text = "\n\n".join(
        f"{title}:\n" + _wrap(", ".join(names), "  ", "  ")
        for title, names in groups.items()
    )
    return f"{text}\n\nxDSL's {len(xdsl)} passes: --list-passes; what each pipeline runs: --list-pipelines"


def targets_help() -> str:
    return (
        f"output: {', '.join(TARGETS)} (default: mlir); options in braces: 'c{{isa=avx2}}'. "
        "xDSL's targets for its own low-level dialects (llvm, x86-asm, riscv-asm, wgsl, ...) are xdsl-opt's"
    )


def check_pass_names(spec: str, available: Iterable[str]) -> None:
    """Refuse a pipeline naming an unknown pass, with the close names (xDSL gave none)."""
    from kiln.passes.rules.check import did_you_mean

    known = list(available)
    unknown = [p.name for p in parse_pipeline(spec) if p.name not in known]
    if len(unknown) == 1:
        raise ValueError(f"Unrecognized passes: {unknown}{did_you_mean(unknown[0], known)}")
    if unknown:
        hints = "".join(f"; {name}: {hint.removeprefix('; ')}" for name in unknown if (hint := did_you_mean(name, known)))
        raise ValueError(f"Unrecognized passes: {unknown}{hints}")
