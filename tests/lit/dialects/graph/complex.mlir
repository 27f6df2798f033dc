// RUN: kiln-opt %s | filecheck %s
// RUN: kiln-opt %s --print-op-generic | kiln-opt | filecheck %s

// Complex tensors (NumPy's complex64/complex128), built from and taken apart into float
// tensors; the unsigned and float16 element types of the other NumPy dtypes.
// CHECK-LABEL: func.func @complex
// CHECK:         %[[Z:.*]] = graph.complex %re, %im : tensor<3xf64> -> tensor<3xcomplex<f64>>
// CHECK-NEXT:    %{{.*}} = graph.real %[[Z]] : tensor<3xcomplex<f64>> -> tensor<3xf64>
// CHECK-NEXT:    %{{.*}} = graph.imag %[[Z]] : tensor<3xcomplex<f64>> -> tensor<3xf64>
// CHECK-NEXT:    %{{.*}} = graph.cabs %[[Z]] : tensor<3xcomplex<f64>> -> tensor<3xf64>
// CHECK-NEXT:    %{{.*}} = graph.angle %[[Z]] : tensor<3xcomplex<f64>> -> tensor<3xf64>
// CHECK-NEXT:    %{{.*}} = graph.conj %[[Z]] : tensor<3xcomplex<f64>>
// CHECK-NEXT:    %{{.*}} = graph.div %[[Z]], %[[Z]] : tensor<3xcomplex<f64>>
// CHECK-NEXT:    %{{.*}} = graph.exp %[[Z]] : tensor<3xcomplex<f64>>
// CHECK-NEXT:    %{{.*}} = graph.add %u, %u : tensor<3xui8>
// CHECK-NEXT:    %{{.*}} = graph.mul %h, %h : tensor<3xf16>
func.func @complex(%re: tensor<3xf64>, %im: tensor<3xf64>, %u: tensor<3xui8>, %h: tensor<3xf16>) {
  %z = graph.complex %re, %im : tensor<3xf64> -> tensor<3xcomplex<f64>>
  %0 = graph.real %z : tensor<3xcomplex<f64>> -> tensor<3xf64>
  %1 = graph.imag %z : tensor<3xcomplex<f64>> -> tensor<3xf64>
  %2 = graph.cabs %z : tensor<3xcomplex<f64>> -> tensor<3xf64>
  %3 = graph.angle %z : tensor<3xcomplex<f64>> -> tensor<3xf64>
  %4 = graph.conj %z : tensor<3xcomplex<f64>>
  %5 = graph.div %z, %z : tensor<3xcomplex<f64>>
  %6 = graph.exp %z : tensor<3xcomplex<f64>>
  %7 = graph.add %u, %u : tensor<3xui8>
  %8 = graph.mul %h, %h : tensor<3xf16>
  func.return
}
