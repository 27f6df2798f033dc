// An exception that is not a diagnostic and not raised in the user's code (a bug in kiln) is
// reported as one line naming the pass and the location of the op it was working on, and the
// input is kept with the command and the traceback for a bug report; no Python traceback is
// shown. breaks_kiln.py stands in for such a bug (kiln-group-exp fails on vector math.exp).

// RUN: rm -rf %t.tmp && mkdir -p %t.tmp
// RUN: env TMPDIR=%t.tmp not kiln-opt %s --load %inputs/breaks_kiln.py -p canonicalize,kiln-group-exp 2>&1 | filecheck %s
// CHECK: kiln-opt: internal error in pass kiln-group-exp at {{.*}}internal-error.mlir:20:3 ('math.exp'): AttributeError: 'NoneType' object has no attribute 'ExpGroupOp'
// CHECK-NEXT: kiln-opt: the input, the command and the traceback are kept in {{.*}}kiln-opt-crashes{{/|\\}}{{[0-9a-f]+}}.mlir for a bug report
// CHECK-NOT: Traceback

// RUN: cat %t.tmp/kiln-opt-crashes/*.mlir | filecheck %s --check-prefix=KEPT
// KEPT: func.func @f
// KEPT: kiln-opt internal error report (not part of the input)
// KEPT: // kiln-opt {{.*}}internal-error.mlir --load {{.*}} -p canonicalize,kiln-group-exp
// KEPT: // Traceback (most recent call last):
// KEPT: // AttributeError: 'NoneType' object has no attribute 'ExpGroupOp'

func.func @f(%a: vector<8xf32>, %b: vector<8xf32>) -> vector<8xf32> {
  %e = math.exp %a : vector<8xf32>
  %g = math.exp %b : vector<8xf32>
  %s = arith.addf %e, %g : vector<8xf32>
  func.return %s : vector<8xf32>
}

// An op with a location of its own is reported there.
// RUN: sed -e 's/^  %e = math.exp %a : vector<8xf32>$/& loc("model.py":7:9)/' -e '/RUN/d' %s > %t.loc.mlir
// RUN: env TMPDIR=%t.tmp not kiln-opt %t.loc.mlir --load %inputs/breaks_kiln.py -p kiln-group-exp 2>&1 | filecheck %s --check-prefix=LOC
// LOC: kiln-opt: internal error in pass kiln-group-exp at loc("model.py":7:9) ('math.exp'): AttributeError
