"""kiln-opt's MLIR parser: xDSL's, recording where each op starts, and suggesting the close
names of a misspelled op."""

from __future__ import annotations

from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.utils.lexer import Span

#: where the parser read each op: the span of its first token and its chunk's line offset
OpSpans = dict[Operation, tuple[Span[bytes], int]]


class KilnOptParser(Parser):
    """xDSL's parser, also recording where each op starts (for error reports only: the ops' own
    locations, hence the printed IR, are unchanged)."""

    def __init__(self, *args: object, spans: OpSpans, line_offset: int, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self._spans = spans
        self._line_offset = line_offset

    def parse_operation(self) -> Operation:
        start = self._current_token.span
        op = super().parse_operation()
        self._spans.setdefault(op, (start, self._line_offset))
        return op

    def _get_op_by_name(self, name: str) -> type[Operation]:
        """The op class of ``name``; an unknown name is an error naming the dialect's close ones."""
        if (op_type := self.ctx.get_optional_op(name, dialect_stack=self._parser_state.dialect_stack)) is not None:
            return op_type
        from kiln.passes.rules.check import did_you_mean, known_ops

        self.raise_error(f"Operation {name} is not registered{did_you_mean(name, known_ops(self.ctx, name.split('.')[0]))}")
