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

// A misspelled pass or op name gets the close names.
// RUN: not kiln-opt %s -p cannonicalize 2>&1 | filecheck %s --check-prefix=CLOSE-PASS
// CLOSE-PASS: kiln-opt: error: Unrecognized passes: ['cannonicalize']; did you mean canonicalize
// RUN: not kiln-opt %s -p graph-to-c,csee,dcee 2>&1 | filecheck %s --check-prefix=CLOSE-PASSES
// CLOSE-PASSES: kiln-opt: error: Unrecognized passes: ['csee', 'dcee']; csee: did you mean cse?; dcee: did you mean dce?
// RUN: echo 'func.func @f(%%a: tensor<2xf32>) { %%b = graph.addd %%a, %%a : tensor<2xf32> }' | not kiln-opt 2>&1 | filecheck %s --check-prefix=CLOSE-OP
// CLOSE-OP: Operation graph.addd is not registered; did you mean graph.add

// An op the verifier refuses is named, with its location (the message alone named neither).
// RUN: not kiln-opt %inputs/invalid-div.mlir 2>&1 | filecheck %s --check-prefix=VERIFY
// VERIFY: kiln-opt: error: {{.*}}invalid-div.mlir:2:3 ('graph.div'): does not verify: graph.div is defined on floats and complex numbers, got element type i32
// VERIFY-NOT: Traceback
// RUN: sed -e 's/: tensor<2xi32>$/& loc("model.py":4:8)/' %inputs/invalid-div.mlir | not kiln-opt 2>&1 | filecheck %s --check-prefix=VERIFY-LOC
// VERIFY-LOC: kiln-opt: error: loc("model.py":4:8) ('graph.div'): does not verify: graph.div is defined

// RUN: not kiln-opt %s.missing 2>&1 | filecheck %s --check-prefix=FILE
// FILE: kiln-opt: error:
// FILE-NOT: Traceback

// RUN: not kiln-opt %s -t nonsense 2>&1 | filecheck %s --check-prefix=TARGET
// TARGET: invalid choice: 'nonsense'
// TARGET-NOT: Traceback

// Only the targets that work on what kiln's pipelines produce are offered (-t llvm ended in an
// internal error, -t wgsl printed nothing); xDSL's others are xdsl-opt's.
// RUN: not kiln-opt %s -t llvm 2>&1 | filecheck %s --check-prefix=LLVM
// LLVM: invalid choice: 'llvm' (choose from mlir, c, cuda)
// RUN: not kiln-opt %s -t wgsl 2>&1 | filecheck %s --check-prefix=WGSL
// WGSL: invalid choice: 'wgsl'
