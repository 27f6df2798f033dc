// RUN: kiln-opt %s --rules kiln:graph-involutions | filecheck %s

// -(-x), ~~x and conj(conj(z)) are the operand, for every element kind they apply to.
// CHECK-LABEL: func.func @twice
// CHECK-NOT:     graph.neg
// CHECK-NOT:     graph.not
// CHECK-NOT:     graph.conj
// CHECK:         func.return %x, %u, %b, %z
func.func @twice(%x: tensor<4xf32>, %u: tensor<4xui8>, %b: tensor<4xi1>, %z: tensor<4xcomplex<f32>>) -> (tensor<4xf32>, tensor<4xui8>, tensor<4xi1>, tensor<4xcomplex<f32>>) {
  %0 = graph.neg %x : tensor<4xf32>
  %1 = graph.neg %0 : tensor<4xf32>
  %2 = graph.neg %u : tensor<4xui8>
  %3 = graph.neg %2 : tensor<4xui8>
  %4 = graph.not %b : tensor<4xi1>
  %5 = graph.not %4 : tensor<4xi1>
  %6 = graph.conj %z : tensor<4xcomplex<f32>>
  %7 = graph.conj %6 : tensor<4xcomplex<f32>>
  func.return %1, %3, %5, %7 : tensor<4xf32>, tensor<4xui8>, tensor<4xi1>, tensor<4xcomplex<f32>>
}

// A negation used elsewhere stays for that use.
// CHECK-LABEL: func.func @shared
// CHECK:         %[[N:.*]] = graph.neg %x : tensor<4xf32>
// CHECK-NEXT:    func.return %x, %[[N]]
func.func @shared(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = graph.neg %x : tensor<4xf32>
  %1 = graph.neg %0 : tensor<4xf32>
  func.return %1, %0 : tensor<4xf32>, tensor<4xf32>
}

// Transposes: the identity goes, two that cancel go, two that do not become one.
// CHECK-LABEL: func.func @transposes
// CHECK:         %[[T:.*]] = graph.transpose %x perm array<i64: 2, 0, 1> : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
// CHECK-NOT:     graph.transpose
// CHECK:         func.return %x, %x, %[[T]]
func.func @transposes(%x: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<4x2x3xf32>) {
  %0 = graph.transpose %x perm array<i64: 0, 1, 2> : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  %1 = graph.transpose %x perm array<i64: 1, 2, 0> : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
  %2 = graph.transpose %1 perm array<i64: 2, 0, 1> : tensor<3x4x2xf32> -> tensor<2x3x4xf32>
  %3 = graph.transpose %x perm array<i64: 1, 0, 2> : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
  %4 = graph.transpose %3 perm array<i64: 2, 1, 0> : tensor<3x2x4xf32> -> tensor<4x2x3xf32>
  func.return %0, %2, %4 : tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<4x2x3xf32>
}
