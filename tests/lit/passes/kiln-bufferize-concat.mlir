// RUN: kiln-opt %s -p kiln-bufferize | filecheck %s
// insert_slice into a tensor.empty (a concatenation's first operand): the empty's contents are
// undefined, so when its buffer may not be overwritten (CSE gave the empty another user) the
// insert writes a fresh buffer without copying the empty one into it.

// CHECK-LABEL: func.func @shared_empty(%a: memref<1xf32>, %b: memref<2xf32>, %out: memref<3xf32>)
// CHECK-NEXT:    %[[C:.*]] = memref.alloc() : memref<3xf32>
// CHECK-NEXT:    memref.subview %[[C]][0] [1] [1]
// CHECK-NOT:     memref.alloc
// CHECK:         memref.subview %[[C]][1] [2] [1]
// CHECK:         linalg.generic {{.*}} ins(%[[C]] : memref<3xf32>) outs(%out : memref<3xf32>)
func.func @shared_empty(%a: tensor<1xf32>, %b: tensor<2xf32>) -> tensor<3xf32> {
  %e = tensor.empty() : tensor<3xf32>
  %0 = tensor.insert_slice %a into %e[0] [1] [1] : tensor<1xf32> into tensor<3xf32>
  %1 = tensor.insert_slice %b into %0[1] [2] [1] : tensor<2xf32> into tensor<3xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%1 : tensor<3xf32>) outs(%e : tensor<3xf32>) {
  ^bb0(%x: f32, %y: f32):
    %m = arith.mulf %x, %x : f32
    linalg.yield %m : f32
  } -> tensor<3xf32>
  func.return %2 : tensor<3xf32>
}
