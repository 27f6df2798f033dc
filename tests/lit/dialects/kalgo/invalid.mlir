// RUN: kiln-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @axis(%x: tensor<4xf32>, %e: tensor<4xf32>) -> tensor<4xf32> {
  %y = kalgo.sort {axis = 2 : i64} ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}
// CHECK: kalgo.sort: axis 2 is out of range for rank 1

// -----

func.func @kind(%x: tensor<4xf32>, %e: tensor<4xf32>) -> tensor<4xf32> {
  %y = kalgo.scan {axis = 0 : i64, kind = "sub"} ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}
// CHECK: kalgo.scan: unknown kind 'sub'

// -----

func.func @shapes(%x: tensor<4xf32>, %e: tensor<5xf32>) -> tensor<5xf32> {
  %y = kalgo.scan {axis = 0 : i64, kind = "add"} ins(%x : tensor<4xf32>) outs(%e : tensor<5xf32>) -> tensor<5xf32>
  func.return %y : tensor<5xf32>
}
// CHECK: inferred input/output operand #1 has shape's dimension #0 to be 4, but found 5

// -----

func.func @nonzero_output(%x: tensor<4xf32>, %e: tensor<?xi32>) -> tensor<?xi32> {
  %y = kalgo.nonzero {} ins(%x : tensor<4xf32>) outs(%e : tensor<?xi32>) -> tensor<?xi32>
  func.return %y : tensor<?xi32>
}
// CHECK: kalgo.nonzero: the output is 1-D i64

// -----

func.func @compress_output(%x: tensor<4xf32>, %m: tensor<4xi1>, %e: tensor<?xf64>) -> tensor<?xf64> {
  %y = kalgo.compress {} ins(%x, %m : tensor<4xf32>, tensor<4xi1>) outs(%e : tensor<?xf64>) -> tensor<?xf64>
  func.return %y : tensor<?xf64>
}
// CHECK: kalgo.compress: the output is 1-D, of the values' element type

// -----

func.func @compress_inputs(%x: tensor<4xf32>, %e: tensor<?xf32>) -> tensor<?xf32> {
  %y = kalgo.compress {} ins(%x : tensor<4xf32>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  func.return %y : tensor<?xf32>
}
// CHECK: kalgo.compress: 1-D values and mask

// -----

func.func @compress_lengths(%x: tensor<4xf32>, %m: tensor<5xi1>, %e: tensor<?xf32>) -> tensor<?xf32> {
  %y = kalgo.compress {} ins(%x, %m : tensor<4xf32>, tensor<5xi1>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  func.return %y : tensor<?xf32>
}
// CHECK: kalgo.compress: the values and the mask have one length, got 4 and 5
