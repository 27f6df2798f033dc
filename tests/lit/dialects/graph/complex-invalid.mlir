// RUN: kiln-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @real_of_real(%x: tensor<3xf32>) -> tensor<3xf32> {
  %r = graph.real %x : tensor<3xf32> -> tensor<3xf32>
  func.return %r : tensor<3xf32>
}
// CHECK: graph.real is defined on complex numbers, got element type f32

// -----

func.func @wrong_part_type(%z: tensor<3xcomplex<f32>>) -> tensor<3xf64> {
  %r = graph.cabs %z : tensor<3xcomplex<f32>> -> tensor<3xf64>
  func.return %r : tensor<3xf64>
}
// CHECK: graph.cabs: result must be f32 of the operand's shape

// -----

func.func @int_parts(%a: tensor<3xi32>) -> tensor<3xcomplex<i32>> {
  %z = graph.complex %a, %a : tensor<3xi32> -> tensor<3xcomplex<i32>>
  func.return %z : tensor<3xcomplex<i32>>
}
// CHECK: graph.complex: the parts must be f32 or f64, got i32

// -----

func.func @conj_of_real(%x: tensor<3xf64>) -> tensor<3xf64> {
  %c = graph.conj %x : tensor<3xf64>
  func.return %c : tensor<3xf64>
}
// CHECK: graph.conj is defined on complex numbers, got element type f64

// -----

func.func @sigmoid_of_complex(%z: tensor<3xcomplex<f64>>) -> tensor<3xcomplex<f64>> {
  %s = graph.sigmoid %z : tensor<3xcomplex<f64>>
  func.return %s : tensor<3xcomplex<f64>>
}
// CHECK: graph.sigmoid is defined on floats, got element type complex<f64>
