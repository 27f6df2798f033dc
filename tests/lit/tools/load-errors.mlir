// RUN: not kiln-opt %s --load %inputs/bad_user_ext.py 2>&1 | filecheck %s
// RUN: not kiln-opt %s --load no_such_module_here 2>&1 | filecheck %s --check-prefix=MISSING

// A --load module that raises is the user's error at the user's line (it was an internal
// error of kiln-opt, with a bug report).
// CHECK: kiln-opt: error: --load {{.*}}bad_user_ext.py: {{.*}}bad_user_ext.py:5: PyRDLOpDefinitionError: BadOp.T is neither
// CHECK-NOT: internal error
// MISSING: kiln-opt: error: --load no_such_module_here: ModuleNotFoundError: No module named 'no_such_module_here'
func.func @f() {
  func.return
}
