// A bug in the user's own pass (--load) is the user's error: kiln-opt names the pass and the
// op it was working on, and shows the user's frames (not kiln's, not xDSL's), with no
// internal error and no bug report.

// RUN: rm -rf %t.tmp && mkdir -p %t.tmp
// RUN: env TMPDIR=%t.tmp not kiln-opt %s --load %inputs/crashing_pass.py -p canonicalize,test-crash-on-addf 2>&1 | filecheck %s
// CHECK: kiln-opt: error: in pass test-crash-on-addf at {{.*}}user-pass-error.mlir:26:3 ('arith.addf'): IndexError: tuple index out of range
// CHECK-NEXT: File "{{.*}}crashing_pass.py", line {{[0-9]+}}, in apply
// CHECK-NEXT: self._look_at(inner)
// CHECK-NEXT: File "{{.*}}crashing_pass.py", line {{[0-9]+}}, in _look_at
// CHECK-NEXT: _ = op.operands[7]
// CHECK-EMPTY:
// CHECK-NOT: {{.}}
// RUN: not ls %t.tmp/kiln-opt-crashes

// IR a pass leaves that does not verify: the op is named, at its location, after the pass.
// RUN: not kiln-opt %s --load %inputs/crashing_pass.py -p cse,test-invalid-addf,canonicalize 2>&1 | filecheck %s --check-prefix=INVALID
// INVALID: kiln-opt: error: {{.*}}user-pass-error.mlir:26:3 ('arith.addf'): does not verify after pass test-invalid-addf: {{.+}}

// A pass that imports a module beside it finds it (--load puts the file's folder on sys.path,
// as `python FILE` does).
// RUN: kiln-opt %s --load %inputs/sibling_import_pass.py -p test-sibling-import | filecheck %s --check-prefix=SIBLING
// SIBLING: arith.addf {{.*}} {sibling = "imported"}

func.func @f(%a: f32) -> f32 {
  %s = arith.addf %a, %a : f32
  func.return %s : f32
}
