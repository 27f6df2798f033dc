// RUN: %roundtrip

// CHECK-LABEL: func.func @mm
// CHECK-NEXT:    kernel.matmul ins(%a, %b : memref<4x3xf32>, memref<3x5xf32>) outs(%c : memref<4x5xf32>) {
// CHECK-NEXT:    ^{{.*}}(%{{.*}}: index, %{{.*}}: index):
// CHECK-NEXT:      kernel.yield
// CHECK-NEXT:    }
func.func @mm(%a: memref<4x3xf32>, %b: memref<3x5xf32>, %c: memref<4x5xf32>) {
  kernel.matmul ins(%a, %b : memref<4x3xf32>, memref<3x5xf32>) outs(%c : memref<4x5xf32>) {
  ^bb0(%lo: index, %hi: index):
    kernel.yield
  }
  func.return
}

// CHECK-LABEL: func.func @mv
// CHECK-NEXT:    kernel.matvec ins(%a, %x : memref<4x3xf64>, memref<3xf64>) outs(%y : memref<4xf64>)
// CHECK-NEXT:    kernel.vecmat ins(%z, %a : memref<4xf64>, memref<4x3xf64>) outs(%x : memref<3xf64>)
func.func @mv(%a: memref<4x3xf64>, %x: memref<3xf64>, %y: memref<4xf64>, %z: memref<4xf64>) {
  kernel.matvec ins(%a, %x : memref<4x3xf64>, memref<3xf64>) outs(%y : memref<4xf64>)
  kernel.vecmat ins(%z, %a : memref<4xf64>, memref<4x3xf64>) outs(%x : memref<3xf64>)
  func.return
}
