// An exception that is not a diagnostic (a bug in a pass) is reported as one line naming the
// pass and the location of the op it was working on, and the input is kept with the command
// and the traceback for a bug report; no Python traceback is shown.

// RUN: rm -rf %t.tmp && mkdir -p %t.tmp
// RUN: env TMPDIR=%t.tmp not kiln-opt %s --load %inputs/crashing_pass.py -p canonicalize,test-crash-on-addf 2>&1 | filecheck %s
// CHECK: kiln-opt: internal error in pass test-crash-on-addf at {{.*}}internal-error.mlir:19:3 ('arith.addf'): IndexError: tuple index out of range
// CHECK-NEXT: kiln-opt: the input, the command and the traceback are kept in {{.*}}kiln-opt-crashes{{/|\\}}{{[0-9a-f]+}}.mlir for a bug report
// CHECK-NOT: Traceback

// RUN: cat %t.tmp/kiln-opt-crashes/*.mlir | filecheck %s --check-prefix=KEPT
// KEPT: func.func @f
// KEPT: kiln-opt internal error report (not part of the input)
// KEPT: // kiln-opt {{.*}}internal-error.mlir --load {{.*}} -p canonicalize,test-crash-on-addf
// KEPT: // Traceback (most recent call last):
// KEPT: // IndexError: tuple index out of range

func.func @f(%a: f32) -> f32 {
  %s = arith.addf %a, %a : f32
  func.return %s : f32
}

// An op with a location of its own is reported there.
// RUN: sed -e 's/: f32$/: f32 loc("model.py":7:9)/' -e '/RUN/d' %s > %t.loc.mlir
// RUN: env TMPDIR=%t.tmp not kiln-opt %t.loc.mlir --load %inputs/crashing_pass.py -p test-crash-on-addf 2>&1 | filecheck %s --check-prefix=LOC
// LOC: kiln-opt: internal error in pass test-crash-on-addf at loc("model.py":7:9) ('arith.addf'): IndexError
