// RUN: %roundtrip
// The kalgo ops on tensors (with results) and on memrefs (without): the placeholder body is
// not printed and is rebuilt on parsing.

// CHECK-LABEL: func.func @tensors
// CHECK:         %{{.*}} = kalgo.scan {axis = 1 : i64, kind = "mul"} ins(%x : tensor<3x4xf32>) outs(%e : tensor<3x4xf32>) -> tensor<3x4xf32>
// CHECK-NEXT:    %{{.*}} = kalgo.argreduce {axis = 0 : i64, kind = "max"} ins(%x : tensor<3x4xf32>) outs(%r : tensor<4xi64>) -> tensor<4xi64>
// CHECK-NEXT:    %{{.*}} = kalgo.sort {axis = 0 : i64} ins(%x : tensor<3x4xf32>) outs(%e : tensor<3x4xf32>) -> tensor<3x4xf32>
// CHECK-NEXT:    %{{.*}} = kalgo.argsort {axis = 1 : i64} ins(%x : tensor<3x4xf32>) outs(%p : tensor<3x4xi64>) -> tensor<3x4xi64>
// CHECK-NEXT:    %{{.*}} = kalgo.bincount {} ins(%i, %w : tensor<9xi64>, tensor<9xf64>) outs(%c : tensor<5xf64>) -> tensor<5xf64>
// CHECK-NEXT:    %{{.*}} = kalgo.searchsorted {side = "left"} ins(%s, %x : tensor<6xf32>, tensor<3x4xf32>) outs(%p : tensor<3x4xi64>) -> tensor<3x4xi64>
func.func @tensors(%x: tensor<3x4xf32>, %e: tensor<3x4xf32>, %p: tensor<3x4xi64>, %i: tensor<9xi64>, %w: tensor<9xf64>,
                   %c: tensor<5xf64>, %s: tensor<6xf32>, %r: tensor<4xi64>) {
  %0 = kalgo.scan {axis = 1 : i64, kind = "mul"} ins(%x : tensor<3x4xf32>) outs(%e : tensor<3x4xf32>) -> tensor<3x4xf32>
  %a = kalgo.argreduce {axis = 0 : i64, kind = "max"} ins(%x : tensor<3x4xf32>) outs(%r : tensor<4xi64>) -> tensor<4xi64>
  %1 = kalgo.sort {axis = 0 : i64} ins(%x : tensor<3x4xf32>) outs(%e : tensor<3x4xf32>) -> tensor<3x4xf32>
  %2 = kalgo.argsort {axis = 1 : i64} ins(%x : tensor<3x4xf32>) outs(%p : tensor<3x4xi64>) -> tensor<3x4xi64>
  %3 = kalgo.bincount {} ins(%i, %w : tensor<9xi64>, tensor<9xf64>) outs(%c : tensor<5xf64>) -> tensor<5xf64>
  %4 = kalgo.searchsorted {side = "left"} ins(%s, %x : tensor<6xf32>, tensor<3x4xf32>) outs(%p : tensor<3x4xi64>) -> tensor<3x4xi64>
  func.return
}

// -----

// CHECK-LABEL: func.func @buffers
// CHECK:         kalgo.sort {axis = 0 : i64} ins(%x : memref<?xi32>) outs(%y : memref<?xi32>)
// CHECK-NEXT:    kalgo.bincount {} ins(%i : memref<?xi64>) outs(%c : memref<4xi64>)
func.func @buffers(%x: memref<?xi32>, %y: memref<?xi32>, %i: memref<?xi64>, %c: memref<4xi64>) {
  kalgo.sort {axis = 0 : i64} ins(%x : memref<?xi32>) outs(%y : memref<?xi32>)
  kalgo.bincount {} ins(%i : memref<?xi64>) outs(%c : memref<4xi64>)
  func.return
}

// -----

// CHECK-LABEL: func.func @no_inputs
// CHECK:         %{{.*}} = kalgo.iota {} ins() outs(%e : tensor<?xi64>) -> tensor<?xi64>
func.func @no_inputs(%e: tensor<?xi64>) {
  %0 = kalgo.iota {} ins() outs(%e : tensor<?xi64>) -> tensor<?xi64>
  func.return
}

// -----

// CHECK-LABEL: func.func @nonzero
// CHECK:         %{{.*}} = kalgo.nonzero {} ins(%x : tensor<8xf32>) outs(%e : tensor<?xi64>) -> tensor<?xi64>
// CHECK-NEXT:    kalgo.nonzero {} ins(%m : memref<?xi1>) outs(%p : memref<?xi64>)
func.func @nonzero(%x: tensor<8xf32>, %e: tensor<?xi64>, %m: memref<?xi1>, %p: memref<?xi64>) {
  %0 = kalgo.nonzero {} ins(%x : tensor<8xf32>) outs(%e : tensor<?xi64>) -> tensor<?xi64>
  kalgo.nonzero {} ins(%m : memref<?xi1>) outs(%p : memref<?xi64>)
  func.return
}

// -----

// CHECK-LABEL: func.func @compress
// CHECK:         %{{.*}} = kalgo.compress {} ins(%x, %m : tensor<8xf32>, tensor<8xi1>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
// CHECK-NEXT:    kalgo.compress {} ins(%v, %b : memref<?xf64>, memref<?xi8>) outs(%r : memref<?xf64>)
func.func @compress(%x: tensor<8xf32>, %m: tensor<8xi1>, %e: tensor<?xf32>, %v: memref<?xf64>, %b: memref<?xi8>, %r: memref<?xf64>) {
  %0 = kalgo.compress {} ins(%x, %m : tensor<8xf32>, tensor<8xi1>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  kalgo.compress {} ins(%v, %b : memref<?xf64>, memref<?xi8>) outs(%r : memref<?xf64>)
  func.return
}
