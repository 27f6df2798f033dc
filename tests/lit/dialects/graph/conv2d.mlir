// RUN: kiln-opt %s --split-input-file | filecheck %s
// RUN: kiln-opt %s --split-input-file --print-op-generic | kiln-opt --split-input-file | filecheck %s

// CHECK-LABEL: func.func @valid
// CHECK: graph.conv2d %x, %f strides array<i64: 1, 1> padding "VALID" : (tensor<1x5x5x3xf32>, tensor<3x3x3x8xf32>) -> tensor<1x3x3x8xf32>
func.func @valid(%x: tensor<1x5x5x3xf32>, %f: tensor<3x3x3x8xf32>) -> tensor<1x3x3x8xf32> {
  %y = graph.conv2d %x, %f strides array<i64: 1, 1> padding "VALID" : (tensor<1x5x5x3xf32>, tensor<3x3x3x8xf32>) -> tensor<1x3x3x8xf32>
  func.return %y : tensor<1x3x3x8xf32>
}

// -----

// CHECK-LABEL: func.func @same_strided
// CHECK: graph.conv2d %x, %f strides array<i64: 2, 2> padding "SAME" : (tensor<2x7x6x3xf64>, tensor<3x3x3x4xf64>) -> tensor<2x4x3x4xf64>
func.func @same_strided(%x: tensor<2x7x6x3xf64>, %f: tensor<3x3x3x4xf64>) -> tensor<2x4x3x4xf64> {
  %y = graph.conv2d %x, %f strides array<i64: 2, 2> padding "SAME" : (tensor<2x7x6x3xf64>, tensor<3x3x3x4xf64>) -> tensor<2x4x3x4xf64>
  func.return %y : tensor<2x4x3x4xf64>
}
