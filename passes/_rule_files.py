"""Which of kiln's own rule files (``passes/rules/library``) can rewrite a module, decided
from their text without parsing them.

A rule matches only an op that is its pattern's root: the outermost op pattern, or one of the
alternatives of ``|`` (``graph.matmul`` in ``graph.matmul(graph.mul(s, a), b)``). The roots are
read off the text with the grammar's tokens (rules/rules.lark: an op name is one ``OPNAME``
token, followed by its operands' parenthesis); tests/test_rules.py checks that they are the
roots the parser finds for every kiln file. A file none of whose roots is an op of the module,
or an op that a file that may apply names (and so may build), rewrites nothing. The passes
that run kiln's files skip those, so that a small program does not import the rule language
(lark and its checker: ~60 ms of a 0.25 s first call) and parse and check files that cannot
apply. Only kiln's files are skipped so: their errors are tests' business; a user's file is
always read and checked, and reports its errors whatever the module holds.
"""

from __future__ import annotations

import re
from pathlib import Path

from xdsl.ir import Operation

#: kiln's rule files: ``kiln:NAME`` is ``LIBRARY / "NAME.rules"``
LIBRARY = Path(__file__).with_name("rules") / "library"


def library_files(level: str = "") -> list[Path]:
    """kiln's own rule files, those of one ``level`` when given (``graph``: run by
    ``graph-simplify``; ``loops``: by ``kiln-loops-simplify``)."""
    return sorted(LIBRARY.glob(f"{level}-*.rules" if level else "*.rules"))


def op_names(module: Operation) -> set[str]:
    """The names of the ops in ``module``, nested ones included."""
    return {op.name for op in module.walk()}


#: what the rule grammar reads as an op name (its ``OPNAME`` token)
_OP_NAME = re.compile(r"[A-Za-z_][A-Za-z_0-9]*(?:\.[A-Za-z_][A-Za-z_0-9]*)+")
#: the grammar's tokens, as far as :func:`roots` needs them: strings and comments (which may hold
#: parentheses) whole, op names, names, ``=>``, and any other character alone
_TOKEN = re.compile(r"""("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|#[^\n]*)|(%s)|([A-Za-z_][A-Za-z_0-9]*)|(=>|\S)"""
                    % _OP_NAME.pattern)


def roots(text: str) -> set[str]:
    """The ops the rules of ``text`` can match: the op patterns (an op name and its operands'
    parenthesis) of each rule's pattern, from ``rule NAME:`` to its ``if`` or ``=>``, that no
    other op pattern encloses."""
    found: set[str] = set()
    state = "out"  # "header": `rule NAME [benefit N]`, up to its colon; "pattern": up to `if` or `=>`
    operands: list[bool] = []  # per open parenthesis of the pattern: whether it holds an op's operands
    op: str | None = None  # the op name just before, when the last token was one
    for skipped, name, word, punct in _TOKEN.findall(text):
        if skipped:
            continue
        if state == "pattern" and not operands and (word == "if" or punct == "=>"):
            state = "out"
        elif state == "pattern" and punct == "(":
            if op is not None and not any(operands):
                found.add(op)
            operands.append(op is not None)
        elif state == "pattern" and punct == ")" and operands:
            operands.pop()
        elif word == "rule" and state == "out":
            state = "header"
        elif punct == ":" and state == "header":
            state, operands = "pattern", []
        op = name or None
    return found


def applicable(specs: list[str], module: Operation) -> list[str]:
    """The rule files of ``specs`` (``kiln:NAME`` or paths) that may rewrite ``module``: every
    one that is not kiln's, and kiln's own that name an op of ``module`` or of a file kept (which
    it may build). A file that cannot be read is kept: loading it says why."""
    names = op_names(module)
    pending: dict[str, str] = {}
    for spec in specs:
        text = _text(spec)
        if text is not None and spec.startswith("kiln:"):
            pending[spec] = text
        elif text is not None:
            names.update(_OP_NAME.findall(text))
    grew = True
    while grew:  # until no file left out names an op of the module or of a file kept
        found = [s for s, text in pending.items() if roots(text) & names]
        for spec in found:
            names.update(_OP_NAME.findall(pending.pop(spec)))
        grew = bool(found)
    return [s for s in specs if s not in pending]


def _text(spec: str) -> str | None:
    try:
        return (LIBRARY / f"{spec[5:]}.rules" if spec.startswith("kiln:") else Path(spec)).read_text()
    except OSError:
        return None
