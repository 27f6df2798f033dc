// Errors in rule files are one diagnostic at file:line:col, with the line and a caret.

// RUN: not kiln-opt %s --rules %inputs/bad-rules/syntax.rules 2>&1 | filecheck %s --check-prefix=SYNTAX
// SYNTAX: kiln-opt: error: {{.*}}syntax.rules:3:21: unexpected '=>'; expected
// SYNTAX-NEXT: graph.neg(x) => => x
// SYNTAX-NEXT: {{ +}}^
// SYNTAX-NOT: Traceback

// RUN: not kiln-opt %s --rules %inputs/bad-rules/unknown-op.rules 2>&1 | filecheck %s --check-prefix=OP
// OP: kiln-opt: error: {{.*}}unknown-op.rules:2:5: unknown op 'graph.negate' (no registered dialect defines it); did you mean graph.neg

// RUN: not kiln-opt %s --rules %inputs/bad-rules/operand-count.rules 2>&1 | filecheck %s --check-prefix=COUNT
// COUNT: kiln-opt: error: {{.*}}operand-count.rules:2:5: graph.add takes 2 operands (lhs, rhs), the pattern gives 1

// RUN: not kiln-opt %s --rules %inputs/bad-rules/unbound.rules 2>&1 | filecheck %s --check-prefix=UNBOUND
// UNBOUND: kiln-opt: error: {{.*}}unbound.rules:2:21: name 'y' is not bound by the pattern or a guard

// RUN: not kiln-opt %s --rules %inputs/bad-rules/attribute.rules 2>&1 | filecheck %s --check-prefix=ATTR
// ATTR: kiln-opt: error: {{.*}}attribute.rules:2:21: graph.cmp has no property or attribute 'pred' (it has: predicate)

// RUN: not kiln-opt %s --rules %inputs/bad-rules/value-attribute.rules 2>&1 | filecheck %s --check-prefix=VATTR
// VATTR: kiln-opt: error: {{.*}}value-attribute.rules:2:21: 'x' is any value, so it has only type, element, dtype, kind, shape, rank, static, splat, uses, op; to read an op's attribute, match the op

// RUN: not kiln-opt %s --rules %inputs/bad-rules/unknown-native.rules 2>&1 | filecheck %s --check-prefix=NATIVE
// NATIVE: kiln-opt: error: {{.*}}unknown-native.rules:2:21: unknown function 'no_such'

// RUN: not kiln-opt %s --rules %inputs/bad-rules/result-type.rules 2>&1 | filecheck %s --check-prefix=RTYPE
// RTYPE: kiln-opt: error: {{.*}}result-type.rules:2:31: cannot tell the result type of graph.cast
// RUN: not kiln-opt %s --rules %inputs/bad-rules/annotation.rules 2>&1 | filecheck %s --check-prefix=ANNOT
// ANNOT: kiln-opt: error: {{.*}}annotation.rules:2:37: not a type: 'tensor<4xf33>'

// A rule whose replacement has another type fails where it applies, naming the rule's line.
// RUN: not kiln-opt %s --rules %inputs/bad-rules/type-mismatch.rules 2>&1 | filecheck %s --check-prefix=MISMATCH
// MISMATCH: kiln-opt: error: {{.*}}type-mismatch.rules:3:25: rule drop_reshape: the replacement has type(s) tensor<6xf32> but the replaced graph.reshape has tensor<2x3xf32>

// Rules that undo each other stop with an error instead of running forever.
// RUN: not kiln-opt %s --rules %inputs/bad-rules/loop.rules 2>&1 | filecheck %s --check-prefix=LOOP
// LOOP: kiln-opt: error: the rules of {{.*}}loop.rules still rewrite after 64 sweeps

// RUN: not kiln-opt %s --rules %inputs/bad-rules/missing.rules 2>&1 | filecheck %s --check-prefix=MISSING
// MISSING: kiln-opt: error: cannot read rule file {{.*}}missing.rules: No such file or directory

func.func @f(%x: tensor<6xf32>) -> tensor<2x3xf32> {
  %0 = graph.reshape %x : tensor<6xf32> -> tensor<2x3xf32>
  %1 = graph.add %0, %0 : tensor<2x3xf32>
  func.return %1 : tensor<2x3xf32>
}
