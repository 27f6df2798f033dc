// RUN: kiln-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @compress_output_type(%v: memref<?xf32>, %m: memref<?xi1>, %r: memref<?xf64>) {
  kernel.compress ins(%v, %m : memref<?xf32>, memref<?xi1>) outs(%r : memref<?xf64>)
  func.return
}
// CHECK: kernel.compress: the output has the values' element type, got memref<?xf64>

// -----

func.func @compress_rank(%v: memref<2x3xf32>, %m: memref<?xi1>, %r: memref<?xf32>) {
  kernel.compress ins(%v, %m : memref<2x3xf32>, memref<?xi1>) outs(%r : memref<?xf32>)
  func.return
}
// CHECK: kernel.compress: the values is 1-D, got memref<2x3xf32>

// -----

func.func @nonzero_output_type(%x: memref<?xf32>, %p: memref<?xi32>) {
  kernel.nonzero ins(%x : memref<?xf32>) outs(%p : memref<?xi32>)
  func.return
}
// CHECK: kernel.nonzero: the output is i64, got memref<?xi32>
