// RUN: %roundtrip

// CHECK-LABEL: func.func @algorithms
// CHECK:         kernel.scan "add" axis 1 ins(%x : memref<3x4xf32>) outs(%y : memref<3x4xf32>)
  kernel.argreduce "min" axis 1 ins(%x : memref<3x4xf32>) outs(%r : memref<3xi64>)
// CHECK-NEXT:    kernel.argreduce "min" axis 1 ins(%x : memref<3x4xf32>) outs(%r : memref<3xi64>)
// CHECK-NEXT:    kernel.sort axis 0 ins(%x : memref<3x4xf32>) outs(%y : memref<3x4xf32>)
// CHECK-NEXT:    kernel.argsort axis 1 ins(%x : memref<3x4xf32>) outs(%p : memref<3x4xi64>)
// CHECK-NEXT:    kernel.bincount ins(%i : memref<?xi64>) outs(%c : memref<5xi64>)
// CHECK-NEXT:    kernel.bincount ins(%i, %w : memref<?xi64>, memref<?xf64>) outs(%cw : memref<5xf64>)
// CHECK-NEXT:    kernel.searchsorted "left" ins(%s, %x : memref<6xf32>, memref<3x4xf32>) outs(%p : memref<3x4xi64>)
func.func @algorithms(%x: memref<3x4xf32>, %y: memref<3x4xf32>, %p: memref<3x4xi64>, %i: memref<?xi64>,
                      %w: memref<?xf64>, %c: memref<5xi64>, %cw: memref<5xf64>, %s: memref<6xf32>, %r: memref<3xi64>) {
  kernel.scan "add" axis 1 ins(%x : memref<3x4xf32>) outs(%y : memref<3x4xf32>)
  kernel.argreduce "min" axis 1 ins(%x : memref<3x4xf32>) outs(%r : memref<3xi64>)
  kernel.sort axis 0 ins(%x : memref<3x4xf32>) outs(%y : memref<3x4xf32>)
  kernel.argsort axis 1 ins(%x : memref<3x4xf32>) outs(%p : memref<3x4xi64>)
  kernel.bincount ins(%i : memref<?xi64>) outs(%c : memref<5xi64>)
  kernel.bincount ins(%i, %w : memref<?xi64>, memref<?xf64>) outs(%cw : memref<5xf64>)
  kernel.searchsorted "left" ins(%s, %x : memref<6xf32>, memref<3x4xf32>) outs(%p : memref<3x4xi64>)
  func.return
}

// CHECK-LABEL: func.func @nonzero
// CHECK:         kernel.nonzero ins(%v : memref<?xf32>) outs(%pos : memref<?xi64>)
func.func @nonzero(%v: memref<?xf32>, %pos: memref<?xi64>) {
  kernel.nonzero ins(%v : memref<?xf32>) outs(%pos : memref<?xi64>)
  func.return
}

// CHECK-LABEL: func.func @compress
// CHECK:         kernel.compress ins(%v, %m : memref<?xcomplex<f32>>, memref<?xi1>) outs(%sel : memref<?xcomplex<f32>>)
func.func @compress(%v: memref<?xcomplex<f32>>, %m: memref<?xi1>, %sel: memref<?xcomplex<f32>>) {
  kernel.compress ins(%v, %m : memref<?xcomplex<f32>>, memref<?xi1>) outs(%sel : memref<?xcomplex<f32>>)
  func.return
}
