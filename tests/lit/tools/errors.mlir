// Errors are one-line diagnostics with a non-zero exit, never a Python traceback.

// RUN: not kiln-opt %s -p no-such-pass 2>&1 | filecheck %s --check-prefix=PASS
// PASS: kiln-opt: error: Unrecognized passes: ['no-such-pass']
// PASS-NOT: Traceback

// RUN: not kiln-opt %s -p 'canonicalize{bogus=1}' 2>&1 | filecheck %s --check-prefix=OPT
// OPT: kiln-opt: error:
// OPT-SAME: bogus
// OPT-NOT: Traceback

// RUN: echo 'func.func @f() { "graph.bogus"() : () -> () }' | not kiln-opt 2>&1 | filecheck %s --check-prefix=PARSE
// PARSE: kiln-opt: error:
// PARSE-NOT: Traceback

// RUN: not kiln-opt %inputs/invalid-div.mlir 2>&1 | filecheck %s --check-prefix=VERIFY
// VERIFY: kiln-opt: error:
// VERIFY: graph.div is defined on floats and complex numbers, got element type i32
// VERIFY-NOT: Traceback

// RUN: not kiln-opt %s.missing 2>&1 | filecheck %s --check-prefix=FILE
// FILE: kiln-opt: error:
// FILE-NOT: Traceback

// RUN: not kiln-opt %s -t nonsense 2>&1 | filecheck %s --check-prefix=TARGET
// TARGET: invalid choice: 'nonsense'
// TARGET-NOT: Traceback
