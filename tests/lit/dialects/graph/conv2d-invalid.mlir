// RUN: kiln-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @channels(%x: tensor<1x5x5x2xf32>, %f: tensor<3x3x3x8xf32>) -> tensor<1x3x3x8xf32> {
  // CHECK: graph.conv2d: input has 2 channels but the filters expect 3 (HWIO: dimension 2)
  %y = graph.conv2d %x, %f strides array<i64: 1, 1> padding "VALID" : (tensor<1x5x5x2xf32>, tensor<3x3x3x8xf32>) -> tensor<1x3x3x8xf32>
  func.return %y : tensor<1x3x3x8xf32>
}

// -----
func.func @result(%x: tensor<1x5x5x3xf32>, %f: tensor<3x3x3x8xf32>) -> tensor<1x5x5x8xf32> {
  // CHECK: graph.conv2d: result shape should be (1, 3, 3, 8), got (1, 5, 5, 8)
  %y = graph.conv2d %x, %f strides array<i64: 1, 1> padding "VALID" : (tensor<1x5x5x3xf32>, tensor<3x3x3x8xf32>) -> tensor<1x5x5x8xf32>
  func.return %y : tensor<1x5x5x8xf32>
}

// -----
func.func @padding(%x: tensor<1x5x5x3xf32>, %f: tensor<3x3x3x8xf32>) -> tensor<1x3x3x8xf32> {
  // CHECK: graph.conv2d: padding must be 'VALID' or 'SAME', got 'FULL'
  %y = graph.conv2d %x, %f strides array<i64: 1, 1> padding "FULL" : (tensor<1x5x5x3xf32>, tensor<3x3x3x8xf32>) -> tensor<1x3x3x8xf32>
  func.return %y : tensor<1x3x3x8xf32>
}

// -----
func.func @ints(%x: tensor<1x5x5x3xi32>, %f: tensor<3x3x3x8xi32>) -> tensor<1x3x3x8xi32> {
  // CHECK: graph.conv2d: element type must be a float, got i32
  %y = graph.conv2d %x, %f strides array<i64: 1, 1> padding "VALID" : (tensor<1x5x5x3xi32>, tensor<3x3x3x8xi32>) -> tensor<1x3x3x8xi32>
  func.return %y : tensor<1x3x3x8xi32>
}
