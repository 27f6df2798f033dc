// RUN: kiln-opt %s --split-input-file -p kiln-bufferize,convert-kalgo-to-kernel | filecheck %s
// RUN: kiln-opt %s --split-input-file -p convert-kalgo-to-kernel --verify-diagnostics | filecheck %s --check-prefix=TENSORS
// kiln-bufferize gives kalgo ops buffers like linalg ops (the result built in the out-parameter);
// convert-kalgo-to-kernel then makes them kernel calls with the same operands and properties.

// CHECK-LABEL: func.func @all
// CHECK-SAME:    (%x: memref<3x4xf32>, %i: memref<9xi64>, %w: memref<9xf64>, %s: memref<6xf32>, %out: memref<3x4xf32>, %out_1: memref<3x4xi64>, %out_2: memref<5xf64>, %out_3: memref<3x4xi64>, %out_4: memref<4xi64>)
// CHECK-NEXT:    %[[T:.*]] = memref.alloc() : memref<3x4xf32>
// CHECK-NEXT:    kernel.scan "mul" axis 1 ins(%x : memref<3x4xf32>) outs(%[[T]] : memref<3x4xf32>)
// CHECK-NEXT:    kernel.sort axis 0 ins(%[[T]] : memref<3x4xf32>) outs(%out : memref<3x4xf32>)
// CHECK-NEXT:    memref.dealloc %[[T]] : memref<3x4xf32>
// CHECK-NEXT:    kernel.argsort axis 1 ins(%x : memref<3x4xf32>) outs(%out_1 : memref<3x4xi64>)
// CHECK-NEXT:    kernel.argreduce "min" axis 0 ins(%x : memref<3x4xf32>) outs(%out_4 : memref<4xi64>)
// CHECK-NEXT:    kernel.bincount ins(%i, %w : memref<9xi64>, memref<9xf64>) outs(%out_2 : memref<5xf64>)
// CHECK-NEXT:    kernel.searchsorted "left" ins(%s, %x : memref<6xf32>, memref<3x4xf32>) outs(%out_3 : memref<3x4xi64>)
// CHECK-NOT:     kalgo
// TENSORS: convert-kalgo-to-kernel: 'kalgo.scan' on tensors; run kiln-bufferize first
func.func @all(%x: tensor<3x4xf32>, %i: tensor<9xi64>, %w: tensor<9xf64>, %s: tensor<6xf32>)
    -> (tensor<3x4xf32>, tensor<3x4xi64>, tensor<5xf64>, tensor<3x4xi64>, tensor<4xi64>) {
  %e0 = tensor.empty() : tensor<3x4xf32>
  %0 = kalgo.scan {axis = 1 : i64, kind = "mul"} ins(%x : tensor<3x4xf32>) outs(%e0 : tensor<3x4xf32>) -> tensor<3x4xf32>
  %e1 = tensor.empty() : tensor<3x4xf32>
  %1 = kalgo.sort {axis = 0 : i64} ins(%0 : tensor<3x4xf32>) outs(%e1 : tensor<3x4xf32>) -> tensor<3x4xf32>
  %e2 = tensor.empty() : tensor<3x4xi64>
  %2 = kalgo.argsort {axis = 1 : i64} ins(%x : tensor<3x4xf32>) outs(%e2 : tensor<3x4xi64>) -> tensor<3x4xi64>
  %e5 = tensor.empty() : tensor<4xi64>
  %5 = kalgo.argreduce {axis = 0 : i64, kind = "min"} ins(%x : tensor<3x4xf32>) outs(%e5 : tensor<4xi64>) -> tensor<4xi64>
  %e3 = tensor.empty() : tensor<5xf64>
  %3 = kalgo.bincount {} ins(%i, %w : tensor<9xi64>, tensor<9xf64>) outs(%e3 : tensor<5xf64>) -> tensor<5xf64>
  %e4 = tensor.empty() : tensor<3x4xi64>
  %4 = kalgo.searchsorted {side = "left"} ins(%s, %x : tensor<6xf32>, tensor<3x4xf32>) outs(%e4 : tensor<3x4xi64>) -> tensor<3x4xi64>
  func.return %1, %2, %3, %4, %5 : tensor<3x4xf32>, tensor<3x4xi64>, tensor<5xf64>, tensor<3x4xi64>, tensor<4xi64>
}

// -----

// kalgo.histogram: buffers for both outputs, then one kernel.histogram.
// CHECK-LABEL: func.func @histogram
// CHECK-NEXT:    kernel.histogram ins(%x, %lo, %hi, %span, %e, %w : memref<?xf64>, memref<f64>, memref<f64>, memref<f64>, memref<5xf64>, memref<?xf32>) outs(%out, %out_1 : memref<4xi64>, memref<4xf32>)
// CHECK-NEXT:    func.return
func.func @histogram(%x: tensor<?xf64>, %lo: tensor<f64>, %hi: tensor<f64>, %span: tensor<f64>, %e: tensor<5xf64>, %w: tensor<?xf32>) -> (tensor<4xi64>, tensor<4xf32>) {
  %0 = tensor.empty() : tensor<4xi64>
  %1 = tensor.empty() : tensor<4xf32>
  %c, %s = kalgo.histogram {} ins(%x, %lo, %hi, %span, %e, %w : tensor<?xf64>, tensor<f64>, tensor<f64>, tensor<f64>, tensor<5xf64>, tensor<?xf32>) outs(%0, %1 : tensor<4xi64>, tensor<4xf32>) -> tensor<4xi64>, tensor<4xf32>
  func.return %c, %s : tensor<4xi64>, tensor<4xf32>
}
