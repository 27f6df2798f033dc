"""kiln's rewrite-rule language (docs/rules.md): rule files parsed with lark (each text once per
machine under kiln.function: :mod:`.reader`), checked against the registered dialects, compiled
to xDSL ``RewritePattern``\\ s.

- :func:`load_rules` reads rule files (a path, or ``kiln:NAME`` for kiln's own
  ``library/NAME.rules``) into a :class:`RuleSet`;
- :meth:`RuleSet.apply` rewrites a module until no rule applies;
- :func:`register_rule_native` (``kiln.register_rule_native``) makes a Python function callable
  from rule files.

The passes ``apply-rules{file=...}`` and ``graph-simplify`` and ``kiln-opt --rules FILE`` run
rule sets; ``kiln.function(rules=...)`` runs one on the traced graph before lowering.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from xdsl.context import Context
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriter, PatternRewriteWalker, RewritePattern
from xdsl.ir import Operation
from xdsl.utils.exceptions import DiagnosticException

from kiln.passes._rule_files import LIBRARY, library_files
from kiln.passes.rules.check import CheckedRule, check_rule
from kiln.passes.rules.engine import RulePattern
from kiln.passes.rules.natives import Native, RuleBuilder, lookup, register_rule_native
from kiln.passes.rules.reader import parse
from kiln.passes.rules.syntax import RuleError

__all__ = ["RuleBuilder", "RuleError", "RuleSet", "library_files", "load_rules", "parse_rules", "register_rule_native"]

#: how many sweeps over a module a rule set may take before it is taken for a loop
MAX_SWEEPS = 64


@dataclass(frozen=True)
class RuleSet:
    """Checked rules, highest benefit first (file order among equals)."""

    patterns: tuple[RulePattern, ...]
    #: the rule files (and natives) it was built from, hashed: what cache keys hold
    fingerprint: str
    #: the files, for messages
    names: tuple[str, ...]

    def rewrite_patterns(self) -> list[RewritePattern]:
        """The rules as xDSL rewrite patterns, to combine with others."""
        return list(self.patterns)

    def apply(self, module: Operation) -> bool:
        """Rewrite ``module`` until no rule applies (dead pure ops go too); whether anything changed."""
        by_root: dict[str, list[RulePattern]] = {}
        for p in self.patterns:
            for name in sorted(p.checked.roots):
                by_root.setdefault(name, []).append(p)
        walker = PatternRewriteWalker(GreedyRewritePatternApplier([_Dispatch(by_root)]), apply_recursively=False)
        changed = False
        for _ in range(MAX_SWEEPS):
            if not walker.rewrite_module(module):  # type: ignore[arg-type]
                return changed
            changed = True
        raise DiagnosticException(
            f"the rules of {', '.join(self.names)} still rewrite after {MAX_SWEEPS} sweeps: "
            "does a rule undo what another does?"
        )


class _Dispatch(RewritePattern):
    """Tries only the rules whose root is the op's name, in order of benefit."""

    def __init__(self, by_root: dict[str, list[RulePattern]]):
        self.by_root = by_root

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        for pattern in self.by_root.get(op.name, ()):
            if pattern.apply(op, rewriter):
                return


def resolve(spec: str) -> Path:
    """A rule file named on a command line or in a pass option: a path, or ``kiln:NAME``."""
    if spec.startswith("kiln:"):
        path = LIBRARY / f"{spec[5:]}.rules"
        if not path.is_file():
            known = ", ".join(f"kiln:{p.stem}" for p in library_files())
            raise DiagnosticException(f"no kiln rule file {spec!r}; kiln's are {known}")
        return path
    return Path(spec)


def parse_rules(text: str, name: str, ctx: Context | None = None) -> list[CheckedRule]:
    """The checked rules of ``text`` (errors name ``name``)."""
    from kiln.universe import make_context

    ctx = ctx or make_context()
    return [check_rule(rule, ctx) for rule in parse(text, name).rules]


#: rule sets by their files' names and texts, with the natives their rules call
_loaded: dict[tuple[tuple[str, ...], tuple[str, ...]], tuple[dict[str, Native | None], RuleSet]] = {}


def load_rules(files: str | os.PathLike[str] | Iterable[str | os.PathLike[str]]) -> RuleSet:
    """The rules of one file or several (``kiln:NAME`` names one of kiln's). Files are read on
    every call; they are parsed and checked again when their text (or a native) changed."""
    from kiln.universe import make_context

    specs = [files] if isinstance(files, (str, os.PathLike)) else list(files)
    paths = [resolve(os.fspath(s)) for s in specs]
    try:
        texts = tuple(p.read_text() for p in paths)
    except OSError as e:
        raise DiagnosticException(f"cannot read rule file {e.filename}: {e.strerror}") from None
    key = (tuple(map(os.fspath, specs)), texts)
    cached = _loaded.get(key)
    if cached is not None and all(lookup(n) is f for n, f in cached[0].items()):
        return cached[1]
    ctx = make_context()
    checked: list[CheckedRule] = []
    digest = hashlib.sha256()
    for text, spec in zip(texts, specs):
        digest.update(text.encode() + b"\0")
        checked += parse_rules(text, os.fspath(spec), ctx)
    used = {n: lookup(n) for n in sorted({n for c in checked for n in c.natives})}
    digest.update("".join(f"{n}:{f.fingerprint()};" for n, f in used.items() if f is not None).encode())
    ordered = sorted(checked, key=lambda c: -c.rule.benefit)
    rules = RuleSet(tuple(RulePattern(c, ctx) for c in ordered), digest.hexdigest(), tuple(map(os.fspath, specs)))
    _loaded[key] = (used, rules)
    return rules
