// RUN: kiln-opt %s -p kiln-bufferize,convert-kalgo-to-kernel | filecheck %s
// kalgo.gather/scatter get buffers like linalg ops and become kernel calls. A scatter into an
// argument copies it into the out-parameter first (the argument is not the function's to write).

// CHECK-LABEL: func.func @gather_scatter
// CHECK-SAME:    (%x: memref<10xf64>, %i: memref<4xi64>, %u: memref<4xf64>, %out: memref<4xf64>, %out_1: memref<10xf64>)
// CHECK-NEXT:    kernel.gather ins(%x, %i : memref<10xf64>, memref<4xi64>) outs(%out : memref<4xf64>)
// CHECK-NEXT:    linalg.generic {{.*}} ins(%x : memref<10xf64>) outs(%out_1 : memref<10xf64>)
// CHECK:         linalg.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    kernel.scatter "add" ins(%u, %i : memref<4xf64>, memref<4xi64>) outs(%out_1 : memref<10xf64>)
// CHECK-NOT:     kalgo
func.func @gather_scatter(%x: tensor<10xf64>, %i: tensor<4xi64>, %u: tensor<4xf64>) -> (tensor<4xf64>, tensor<10xf64>) {
  %e = tensor.empty() : tensor<4xf64>
  %0 = kalgo.gather {} ins(%x, %i : tensor<10xf64>, tensor<4xi64>) outs(%e : tensor<4xf64>) -> tensor<4xf64>
  %1 = kalgo.scatter {kind = "add"} ins(%u, %i : tensor<4xf64>, tensor<4xi64>) outs(%x : tensor<10xf64>) -> tensor<10xf64>
  func.return %0, %1 : tensor<4xf64>, tensor<10xf64>
}
