// RUN: kiln-opt %s -p graph-to-c -t c | filecheck %s
// RUN: kiln-opt %s -p graph-to-c -t c > %t.c && cc -c -Wall -Wno-unused-function -Werror %t.c -o %t.o
// np.linalg.solve on complex128: the LU routines instantiated for `double _Complex`, pivoting on
// |re| + |im| as LAPACK's izamax (cabs, declared without <complex.h>, whose `I` could clash with
// a kernel's names, only for the reciprocal's threshold); products written on the parts; no
// Cholesky for complex types.

// CHECK:       double cabs(double _Complex);
// CHECK-NEXT:  #define LA_COMPLEX
// CHECK-NEXT:  #define LA_FABS fabs
// CHECK-NEXT:  #define LA_T double _Complex
// CHECK-NEXT:  #define LA_R double
// CHECK:       return __builtin_complex(__real__ a * __real__ b - __imag__ a * __imag__ b,
// CHECK:       #define LA_ABS1(a) (LA_FABS(__real__ (a)) + LA_FABS(__imag__ (a)))
// CHECK:       LA_R best = LA_ABS1(col[c]);
// CHECK-LABEL: {{^}}void csolve(
// CHECK:         kiln_linalg_c128_solve(3, 1, a, b, out, kiln_num_threads());
func.func @csolve(%a: tensor<3x3xcomplex<f64>>, %b: tensor<3xcomplex<f64>>) -> tensor<3xcomplex<f64>> {
  %r = graph.linalg "solve" %a, %b : (tensor<3x3xcomplex<f64>>, tensor<3xcomplex<f64>>) -> tensor<3xcomplex<f64>>
  func.return %r : tensor<3xcomplex<f64>>
}
