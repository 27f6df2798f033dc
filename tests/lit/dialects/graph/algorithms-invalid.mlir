// RUN: kiln-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @scan_kind(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = graph.scan "sub", %x axis 0 : tensor<4xf32> -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}
// CHECK: graph.scan: unknown kind 'sub', expected one of add, mul, max, min

// -----

func.func @sort_axis(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = graph.sort %x axis 1 : tensor<4xf32> -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}
// CHECK: graph.sort: axis 1 is out of range for rank 1

// -----

func.func @argsort_type(%x: tensor<4xf32>) -> tensor<4xi32> {
  %y = graph.argsort %x axis 0 : tensor<4xf32> -> tensor<4xi32>
  func.return %y : tensor<4xi32>
}
// CHECK: graph.argsort: the result is i64 of the operand's shape

// -----

func.func @bincount_values(%x: tensor<4xi32>) -> tensor<3xi64> {
  %y = graph.bincount %x : (tensor<4xi32>) -> tensor<3xi64>
  func.return %y : tensor<3xi64>
}
// CHECK: graph.bincount: the operand must be a 1-D i64 tensor

// -----

func.func @bincount_length(%x: tensor<4xi64>) -> tensor<?xi64> {
  %y = graph.bincount %x : (tensor<4xi64>) -> tensor<?xi64>
  func.return %y : tensor<?xi64>
}
// CHECK: graph.bincount: the result must be 1-D of a static length

// -----

func.func @bincount_weights(%x: tensor<4xi64>, %w: tensor<5xf64>) -> tensor<3xf64> {
  %y = graph.bincount %x, %w : (tensor<4xi64>, tensor<5xf64>) -> tensor<3xf64>
  func.return %y : tensor<3xf64>
}
// CHECK: graph.bincount: one weight per element of the operand

// -----

func.func @searchsorted_side(%a: tensor<4xf32>, %v: tensor<2xf32>) -> tensor<2xi64> {
  %y = graph.searchsorted "middle", %a, %v : (tensor<4xf32>, tensor<2xf32>) -> tensor<2xi64>
  func.return %y : tensor<2xi64>
}
// CHECK: graph.searchsorted: side must be 'left' or 'right', got 'middle'

// -----

func.func @searchsorted_types(%a: tensor<4xf32>, %v: tensor<2xf64>) -> tensor<2xi64> {
  %y = graph.searchsorted "left", %a, %v : (tensor<4xf32>, tensor<2xf64>) -> tensor<2xi64>
  func.return %y : tensor<2xi64>
}
// CHECK: graph.searchsorted: a 1-D sorted operand of the values' element type

// -----

func.func @argreduce_kind(%x: tensor<4xf32>) -> tensor<i64> {
  %y = graph.argreduce "sum", %x axis 0 : tensor<4xf32> -> tensor<i64>
  func.return %y : tensor<i64>
}
// CHECK: graph.argreduce: kind must be 'max' or 'min', got 'sum'

// -----

func.func @argreduce_empty(%x: tensor<0x3xf32>) -> tensor<3xi64> {
  %y = graph.argreduce "max", %x axis 0 : tensor<0x3xf32> -> tensor<3xi64>
  func.return %y : tensor<3xi64>
}
// CHECK: graph.argreduce: the axis is empty (NumPy raises: no position to return)

// -----

func.func @argreduce_shape(%x: tensor<2x3xf32>) -> tensor<2xi64> {
  %y = graph.argreduce "max", %x axis 0 : tensor<2x3xf32> -> tensor<2xi64>
  func.return %y : tensor<2xi64>
}
// CHECK: graph.argreduce: the result should be tensor<3xi64>, got tensor<2xi64>

// -----

func.func @histogram_bounds(%x: tensor<4xf64>, %lo: tensor<f32>, %e: tensor<3xf64>) -> tensor<2xi64> {
  %y = graph.histogram %x, %lo, %lo, %lo, %e : (tensor<4xf64>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<3xf64>) -> tensor<2xi64>
  func.return %y : tensor<2xi64>
}
// CHECK: graph.histogram: low, high and span are 0-d of the operand's type

// -----

func.func @histogram_weights(%x: tensor<4xf64>, %lo: tensor<f64>, %e: tensor<3xf64>, %w: tensor<4xf64>) -> tensor<2xf32> {
  %c, %y = graph.histogram %x, %lo, %lo, %lo, %e, %w : (tensor<4xf64>, tensor<f64>, tensor<f64>, tensor<f64>, tensor<3xf64>, tensor<4xf64>) -> (tensor<2xi64>, tensor<2xf32>)
  func.return %y : tensor<2xf32>
}
// CHECK: graph.histogram: f32 or f64 weights, summed in their type, one sum per bin
