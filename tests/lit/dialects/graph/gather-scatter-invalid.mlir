// RUN: kiln-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @index_type(%x: tensor<4xf32>, %i: tensor<2xf32>) -> tensor<2xf32> {
  %y = graph.gather %x[%i] : (tensor<4xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %y : tensor<2xf32>
}
// CHECK: graph.gather: index arrays are i64 tensors, got tensor<2xf32>

// -----

func.func @index_shapes(%x: tensor<4x4xf32>, %i: tensor<2xi64>, %j: tensor<3xi64>) -> tensor<2xf32> {
  %y = graph.gather %x[%i, %j] : (tensor<4x4xf32>, tensor<2xi64>, tensor<3xi64>) -> tensor<2xf32>
  func.return %y : tensor<2xf32>
}
// CHECK: graph.gather: index arrays share one shape, got tensor<3xi64> and tensor<2xi64>

// -----

func.func @too_many(%x: tensor<4xf32>, %i: tensor<2xi64>) -> tensor<2xf32> {
  %y = graph.gather %x[%i, %i] : (tensor<4xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<2xf32>
  func.return %y : tensor<2xf32>
}
// CHECK: graph.gather: 2 index arrays for a rank-1 operand

// -----

func.func @gather_shape(%x: tensor<4x3xf32>, %i: tensor<2xi64>) -> tensor<2xf32> {
  %y = graph.gather %x[%i] : (tensor<4x3xf32>, tensor<2xi64>) -> tensor<2xf32>
  func.return %y : tensor<2xf32>
}
// CHECK: graph.gather: the result tensor<2xf32> does not have the shape index arrays + trailing axes

// -----

func.func @scatter_kind(%x: tensor<4xf32>, %i: tensor<2xi64>, %u: tensor<2xf32>) -> tensor<4xf32> {
  %y = graph.scatter "sub" %u into %x[%i] : (tensor<2xf32>, tensor<4xf32>, tensor<2xi64>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}
// CHECK: graph.scatter: kind must be one of set, add, mul, max, min, got 'sub'

// -----

func.func @scatter_set_type(%x: tensor<4xf32>, %i: tensor<2xi64>, %u: tensor<2xf64>) -> tensor<4xf32> {
  %y = graph.scatter "set" %u into %x[%i] : (tensor<2xf64>, tensor<4xf32>, tensor<2xi64>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}
// CHECK: graph.scatter: "set" updates have the operand's element type

// -----

func.func @nonzero_rank(%x: tensor<2x4xf32>) -> tensor<?xi64> {
  %y = graph.nonzero %x : tensor<2x4xf32> -> tensor<?xi64>
  func.return %y : tensor<?xi64>
}
// CHECK: graph.nonzero: the operand is a 1-D tensor, got tensor<2x4xf32>

// -----

func.func @nonzero_result(%x: tensor<4xf32>) -> tensor<?xi32> {
  %y = graph.nonzero %x : tensor<4xf32> -> tensor<?xi32>
  func.return %y : tensor<?xi32>
}
// CHECK: graph.nonzero: the result is a 1-D i64 tensor, got tensor<?xi32>

// -----

func.func @compress_rank(%x: tensor<2x4xf32>, %m: tensor<2x4xi1>) -> tensor<?xf32> {
  %y = graph.compress %x, %m : (tensor<2x4xf32>, tensor<2x4xi1>) -> tensor<?xf32>
  func.return %y : tensor<?xf32>
}
// CHECK: graph.compress: 1-D values and mask, got tensor<2x4xf32> and tensor<2x4xi1>

// -----

func.func @compress_lengths(%x: tensor<4xf32>, %m: tensor<5xi1>) -> tensor<?xf32> {
  %y = graph.compress %x, %m : (tensor<4xf32>, tensor<5xi1>) -> tensor<?xf32>
  func.return %y : tensor<?xf32>
}
// CHECK: graph.compress: the values and the mask have one length, got 4 and 5

// -----

func.func @compress_result_type(%x: tensor<4xf32>, %m: tensor<?xi1>) -> tensor<?xf64> {
  %y = graph.compress %x, %m : (tensor<4xf32>, tensor<?xi1>) -> tensor<?xf64>
  func.return %y : tensor<?xf64>
}
// CHECK: graph.compress: the result is a 1-D tensor of a dynamic length and the values' element type, got tensor<?xf64>

// -----

func.func @compress_result_static(%x: tensor<4xf32>, %m: tensor<4xi1>) -> tensor<4xf32> {
  %y = graph.compress %x, %m : (tensor<4xf32>, tensor<4xi1>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}
// CHECK: graph.compress: the result is a 1-D tensor of a dynamic length and the values' element type, got tensor<4xf32>
