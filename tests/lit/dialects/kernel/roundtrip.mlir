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
