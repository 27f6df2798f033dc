// RUN: kiln-opt %s -p kiln-linalg-calls-to-kernel | filecheck %s
// RUN: kiln-opt %s -p buffer-to-loops -t c | filecheck %s --check-prefix=C
// RUN: kiln-opt %s -p buffer-to-loops -t c > %t.c && cc -O2 -Wall -Werror -c %t.c -o %t.o

// Buffer-level calls to the __kiln_linalg_* declarations become kernel.linalg; the
// declarations go; other calls stay.
// CHECK-NOT:   __kiln_linalg
// CHECK-LABEL: func.func @f
// CHECK-NEXT:    %t = memref.alloc() : memref<3x3xf64>
// CHECK-NEXT:    kernel.linalg "cholesky" ins(%a : memref<3x3xf64>) outs(%t : memref<3x3xf64>)
// CHECK-NEXT:    kernel.linalg "solve" ins(%t, %b : memref<3x3xf64>, memref<3xf64>) outs(%x : memref<3xf64>)
// CHECK-NEXT:    kernel.linalg "inv" ins(%a : memref<3x3xf64>) outs(%i : memref<3x3xf64>)
// CHECK-NEXT:    kernel.linalg "det" ins(%a : memref<3x3xf64>) outs(%d : memref<f64>)
// CHECK-NEXT:    func.call @g(%a) : (memref<3x3xf64>) -> ()
// CHECK-NOT:   __kiln_linalg

// The routines are pasted once per element type, instantiated by macros, after the GEMM
// runtime whose micro-kernel cholesky's trailing update runs on.
// C:     #define KG_NAME(x) kiln_gemm_f64_##x
// C:     #define LA_T double
// C-NEXT: #define LA_R double
// C-NEXT: #define LA_NAME(x) kiln_linalg_f64_##x
// C:     static void LA_NAME(cholesky)(long n, const LA_T *a, LA_T *l, int threads) {
// C:     static void LA_NAME(solve)(long n, long m, const LA_T *a, const LA_T *b, LA_T *x, int threads) {
// C:     static LA_T LA_NAME(det)(long n, const LA_T *a, int threads) {
// C:     #undef LA_T
// C-LABEL: void f(
// C:       kiln_linalg_f64_cholesky(3, a, [[T:.*]], kiln_num_threads());
// C:       kiln_linalg_f64_solve(3, 1, [[T]], b, x, kiln_num_threads());
// C:       kiln_linalg_f64_solve(3, 3, a, NULL, i, kiln_num_threads());
// C:       *(d) = kiln_linalg_f64_det(3, a, kiln_num_threads());
func.func private @__kiln_linalg_cholesky_f64_3x3(memref<3x3xf64>, memref<3x3xf64>) -> ()
func.func private @__kiln_linalg_solve_f64_3x3_3(memref<3x3xf64>, memref<3xf64>, memref<3xf64>) -> ()
func.func private @__kiln_linalg_inv_f64_3x3(memref<3x3xf64>, memref<3x3xf64>) -> ()
func.func private @__kiln_linalg_det_f64_3x3(memref<3x3xf64>, memref<f64>) -> ()
func.func private @g(%a: memref<3x3xf64>) {
  func.return
}
func.func @f(%a: memref<3x3xf64>, %b: memref<3xf64>, %x: memref<3xf64>, %i: memref<3x3xf64>, %d: memref<f64>) {
  %t = memref.alloc() : memref<3x3xf64>
  func.call @__kiln_linalg_cholesky_f64_3x3(%a, %t) : (memref<3x3xf64>, memref<3x3xf64>) -> ()
  func.call @__kiln_linalg_solve_f64_3x3_3(%t, %b, %x) : (memref<3x3xf64>, memref<3xf64>, memref<3xf64>) -> ()
  func.call @__kiln_linalg_inv_f64_3x3(%a, %i) : (memref<3x3xf64>, memref<3x3xf64>) -> ()
  func.call @__kiln_linalg_det_f64_3x3(%a, %d) : (memref<3x3xf64>, memref<f64>) -> ()
  func.call @g(%a) : (memref<3x3xf64>) -> ()
  memref.dealloc %t : memref<3x3xf64>
  func.return
}
