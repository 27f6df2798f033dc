// RUN: kiln-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @matvec_length(%a: memref<4x3xf64>, %x: memref<4xf64>, %y: memref<4xf64>) {
  kernel.matvec ins(%a, %x : memref<4x3xf64>, memref<4xf64>) outs(%y : memref<4xf64>)
  func.return
}
// CHECK: kernel.matvec: the vector's length 4 does not match the matrix

// -----

func.func @vecmat_output(%a: memref<4x3xf64>, %x: memref<4xf64>, %y: memref<4xf64>) {
  kernel.vecmat ins(%x, %a : memref<4xf64>, memref<4x3xf64>) outs(%y : memref<4xf64>)
  func.return
}
// CHECK: kernel.vecmat: the output's length 4 does not match the matrix

// -----

func.func @matvec_rank(%a: memref<4x3xf64>, %x: memref<3x1xf64>, %y: memref<4xf64>) {
  kernel.matvec ins(%a, %x : memref<4x3xf64>, memref<3x1xf64>) outs(%y : memref<4xf64>)
  func.return
}
// CHECK: kernel.matvec: the matrix must be 2-D, the vector and the output 1-D

// -----

func.func @matvec_types(%a: memref<4x3xf32>, %x: memref<3xf64>, %y: memref<4xf64>) {
  kernel.matvec ins(%a, %x : memref<4x3xf32>, memref<3xf64>) outs(%y : memref<4xf64>)
  func.return
}
// CHECK: kernel.matvec operands must share one float element type
