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

// kalgo.nonzero gets a buffer of the count's size (a temporary here, freed after its last use)
// and becomes kernel.nonzero.
// CHECK-LABEL: func.func @nonzero
// CHECK:         %[[P:.*]] = memref.alloc(%{{.*}}) : memref<?xi64>
// CHECK-NEXT:    kernel.nonzero ins(%m : memref<?xi1>) outs(%[[P]] : memref<?xi64>)
// CHECK:         memref.dealloc %[[P]] : memref<?xi64>
// CHECK-NOT:     kalgo
func.func @nonzero(%m: tensor<?xi1>, %n: index) -> tensor<i64> {
  %e = tensor.empty(%n) : tensor<?xi64>
  %p = kalgo.nonzero {} ins(%m : tensor<?xi1>) outs(%e : tensor<?xi64>) -> tensor<?xi64>
  %z = tensor.empty() : tensor<i64>
  %c0 = arith.constant 0 : i64
  %f = linalg.fill ins(%c0 : i64) outs(%z : tensor<i64>) -> tensor<i64>
  %s = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%p : tensor<?xi64>) outs(%f : tensor<i64>) {
  ^bb0(%a: i64, %acc: i64):
    %t = arith.addi %acc, %a : i64
    linalg.yield %t : i64
  } -> tensor<i64>
  func.return %s : tensor<i64>
}

// kalgo.compress gets a buffer of the values' element type at the count's size and becomes
// kernel.compress reading the values and the mask.
// CHECK-LABEL: func.func @compress
// CHECK:         %[[R:.*]] = memref.alloc(%{{.*}}) : memref<?xf64>
// CHECK-NEXT:    kernel.compress ins(%x, %m : memref<16xf64>, memref<16xi1>) outs(%[[R]] : memref<?xf64>)
// CHECK:         memref.dealloc %[[R]] : memref<?xf64>
// CHECK-NOT:     kalgo
func.func @compress(%x: tensor<16xf64>, %m: tensor<16xi1>, %n: index) -> tensor<f64> {
  %e = tensor.empty(%n) : tensor<?xf64>
  %r = kalgo.compress {} ins(%x, %m : tensor<16xf64>, tensor<16xi1>) outs(%e : tensor<?xf64>) -> tensor<?xf64>
  %z = tensor.empty() : tensor<f64>
  %c0 = arith.constant 0.0 : f64
  %f = linalg.fill ins(%c0 : f64) outs(%z : tensor<f64>) -> tensor<f64>
  %s = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%r : tensor<?xf64>) outs(%f : tensor<f64>) {
  ^bb0(%a: f64, %acc: f64):
    %t = arith.addf %acc, %a : f64
    linalg.yield %t : f64
  } -> tensor<f64>
  func.return %s : tensor<f64>
}
